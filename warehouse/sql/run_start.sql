-- One source's stage begins: a row of its own in runs, so a crash leaves it 'running' with the
-- time it began, and a rerun of the same run_id starts it afresh.
INSERT OR REPLACE INTO runs (run_id, source, stage, as_of, replay, started_at, status)
VALUES ($run_id, $source, $stage, $as_of, $replay, $started_at, 'running');
