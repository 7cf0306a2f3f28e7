-- One row per source per run: what it did (status, rows, error and warnings), and for a listing
-- source how many of its rows matched a model (matched): the match-rate history that the
-- data-quality alarms compare today against.
CREATE TABLE IF NOT EXISTS runs (
    run_id      VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    stage       VARCHAR NOT NULL,
    as_of       DATE NOT NULL,
    replay      BOOLEAN NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status      VARCHAR NOT NULL,              -- ok|failed|skipped|not recorded|running
    rows        INTEGER,
    error       VARCHAR,
    matched     INTEGER,
    PRIMARY KEY (run_id, source)
);
