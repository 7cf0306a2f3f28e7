-- One source's stage ended: how (ok, failed, skipped), with its rows or its error.
UPDATE runs SET finished_at = $finished_at, status = $status, rows = $rows, error = $error
WHERE run_id = $run_id AND source = $source;
