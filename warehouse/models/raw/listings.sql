-- Every listing a listing source or an import brought, one row per (source, listing_id), with what
-- the load derives from it: the catalog match (model, match_reason), the condition class and the USD
-- total (`rematch` and `reparse` rewrite those). No key index: bulk upserts through DuckDB's key
-- index ran at a third of the speed of a MERGE on a hash join, so the load keeps one row per key
-- itself (deduplicated batch, MERGE on the key) and the integrity checks verify it.
CREATE TABLE IF NOT EXISTS listings (
    source        VARCHAR NOT NULL,
    listing_id    VARCHAR NOT NULL,
    title         VARCHAR NOT NULL,
    subtitle      VARCHAR,
    price         DOUBLE,                      -- in currency
    shipping      DOUBLE,                      -- in currency; NULL unknown, 0 free
    currency      VARCHAR,
    total_usd     DOUBLE,                      -- (price + shipping) converted, NULL when not convertible
    fx_source     VARCHAR,
    condition     VARCHAR,
    condition_class VARCHAR,                   -- used|refurbished|open_box|new|parts|unknown
    buying_option VARCHAR,
    bid_count     INTEGER,
    quantity      INTEGER,
    sold          BOOLEAN NOT NULL,
    sold_at       TIMESTAMP,
    first_seen    TIMESTAMP NOT NULL,
    last_seen     TIMESTAMP NOT NULL,
    status        VARCHAR NOT NULL,            -- active|sold|ended
    url           VARCHAR,
    marketplace   VARCHAR,
    model         VARCHAR,                     -- matched canonical model, NULL when not one card
    match_reason  VARCHAR NOT NULL,
    extras        JSON                         -- what only its source states, by its module's names (schema 23)
);
