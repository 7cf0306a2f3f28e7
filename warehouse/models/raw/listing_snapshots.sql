-- One row per listing per day it was seen: asking prices over time (no key index, as listings).
CREATE TABLE IF NOT EXISTS listing_snapshots (
    source      VARCHAR NOT NULL,
    listing_id  VARCHAR NOT NULL,
    seen_date   DATE NOT NULL,
    price       DOUBLE,
    shipping    DOUBLE,
    currency    VARCHAR,
    total_usd   DOUBLE
);
