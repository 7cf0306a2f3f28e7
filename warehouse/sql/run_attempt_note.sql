-- What a running import has loaded so far, committed with the batch it counts: a process killed
-- at any point leaves the count of what it kept.
UPDATE run_attempts SET note = $note WHERE run_id = $run_id;
