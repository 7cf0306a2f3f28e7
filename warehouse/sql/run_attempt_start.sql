-- A daily run begins: 'running' until it ends, so that a run that never ends stays visible.
INSERT OR REPLACE INTO run_attempts (run_id, as_of, replay, pid, started_at, status)
VALUES ($run_id, $as_of, $replay, $pid, $started_at, 'running');
