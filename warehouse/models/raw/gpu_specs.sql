-- What each spec source said about a card, versioned: a changed value opens a new version
-- (valid_from), so the catalog can be rebuilt from any source's history.
CREATE TABLE IF NOT EXISTS gpu_specs (
    model       VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    valid_from  TIMESTAMP NOT NULL,
    valid_to    TIMESTAMP,                     -- NULL while current
    fetched_at  TIMESTAMP NOT NULL,            -- last time the source said exactly this
    spec_hash   VARCHAR NOT NULL,
    spec        JSON NOT NULL,
    PRIMARY KEY (model, source, valid_from)
);
