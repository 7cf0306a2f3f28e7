-- Each daily run as a whole, beside its sources' rows in runs. A run records itself as 'running' when it
-- starts and 'ok' or 'failed' when it ends; the next run marks a 'running' one it finds 'interrupted'
-- (killed or crashed before its end), and `gpuvalue runs` shows one whose process is gone as
-- interrupted already.
CREATE TABLE IF NOT EXISTS run_attempts (
    run_id      VARCHAR PRIMARY KEY,
    as_of       DATE NOT NULL,
    replay      BOOLEAN NOT NULL,
    pid         INTEGER NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status      VARCHAR NOT NULL,              -- running|ok|failed|interrupted
    note        VARCHAR                        -- why it failed, or that it was found interrupted
);
