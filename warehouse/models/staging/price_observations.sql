-- stg_price_observations, materialized: a day's price needs each model's newest observation on or
-- before the day and the observations of one window. Derived on the fly, both read the whole history
-- to produce a month of it; kept in a table stored in date order, a day reads only its window's row
-- groups. Rewritten for the listings each load touches (sql/refresh_price_observations.sql), rebuilt
-- whole after a rematch or reparse (sql/rebuild_price_observations.sql).
CREATE TABLE IF NOT EXISTS price_observations (
    source      VARCHAR NOT NULL,
    listing_id  VARCHAR NOT NULL,
    model       VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,              -- sold|asking
    obs_date    DATE NOT NULL,
    next_date   DATE,
    usd         DOUBLE NOT NULL
);
