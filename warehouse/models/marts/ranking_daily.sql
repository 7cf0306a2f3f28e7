-- The ranking of each day (sql/ranking.sql): every card with a price and a performance figure, by
-- performance per dollar.
--   framework_support  the catalog's support level that day (gpus.framework_support);
--   passive            a PCIe server card without a fan: it fits a desktop slot but needs a fan kit;
--   price_source       the published index that priced the card (price_kind 'index'), NULL for own prices;
--   price_age_days     as_of - price_as_of (an index price is dated the first day of its month);
--   price_tier         'recent': priced within the comparable window of the day's newest price, ranked
--                      first; 'older': ranked after them, compared with each other only.
CREATE TABLE IF NOT EXISTS ranking_daily (
    as_of               DATE NOT NULL,
    rank                INTEGER NOT NULL,
    model               VARCHAR NOT NULL,
    vendor              VARCHAR,
    architecture        VARCHAR,
    segment             VARCHAR,
    memory_gb           DOUBLE,
    bandwidth_gb_s      DOUBLE,
    relative_perf       DOUBLE NOT NULL,
    perf_source         VARCHAR NOT NULL,
    perf_method         VARCHAR,
    perf_precision      VARCHAR NOT NULL,
    reference_gpu       VARCHAR NOT NULL,
    price_usd           DOUBLE NOT NULL,
    price_kind          VARCHAR NOT NULL,
    price_n             INTEGER NOT NULL,
    price_q1            DOUBLE,
    price_q3            DOUBLE,
    price_as_of         DATE NOT NULL,
    perf_per_dollar     DOUBLE NOT NULL,       -- relative_perf per 1000 USD
    framework_supported BOOLEAN,
    desktop_usable      BOOLEAN,
    stale               BOOLEAN NOT NULL,      -- price older than the price window
    tdp_w               INTEGER,
    framework_support   VARCHAR,
    passive             BOOLEAN,
    price_source        VARCHAR,
    price_age_days      INTEGER,
    price_tier          VARCHAR,
    perf_low            DOUBLE,                -- the 80 % interval of relative_perf, on its scale (schema 19)
    perf_high           DOUBLE,
    PRIMARY KEY (as_of, model)
);
