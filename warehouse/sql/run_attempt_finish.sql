-- A daily run ended: ok, failed (a source failed, or the run raised) or interrupted (Ctrl-C).
UPDATE run_attempts SET finished_at = $finished_at, status = $status, note = $note WHERE run_id = $run_id;
