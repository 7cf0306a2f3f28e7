-- Schema version 26: each daily run as a whole, beside its sources' rows in runs. A run killed
-- halfway (SIGKILL, a crash, a lost machine) left only the rows of the sources it had loaded, each
-- 'ok', and nothing said that it never finished. A run now records itself as 'running' when it
-- starts and 'ok' or 'failed' when it ends; the next run marks a 'running' one it finds
-- 'interrupted', and `gpuvalue runs` shows one whose process is gone as interrupted already.
CREATE TABLE run_attempts (
    run_id      VARCHAR PRIMARY KEY,
    as_of       DATE NOT NULL,
    replay      BOOLEAN NOT NULL,
    pid         INTEGER NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status      VARCHAR NOT NULL,              -- running|ok|failed|interrupted
    note        VARCHAR                        -- why it failed, or that it was found interrupted
);
