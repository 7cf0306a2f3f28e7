-- Where two spec sources disagree on a card's field: the value the catalog kept and the other one.
CREATE TABLE IF NOT EXISTS spec_conflicts (
    model        VARCHAR NOT NULL,
    field        VARCHAR NOT NULL,
    kept_source  VARCHAR NOT NULL,
    kept_value   VARCHAR,
    other_source VARCHAR NOT NULL,
    other_value  VARCHAR,
    detected_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (model, field, other_source)
);
