-- Schema version 5: the observations behind used-market prices, kept as listings load.
--
-- A day's price needs each model's newest observation on or before the day and the
-- observations of one window. Derived on the fly, both read the whole history (every sold
-- listing, every snapshot joined to its listing) to produce a month of it. Kept in a table
-- stored in date order, a day reads only its window's row groups, so the daily step costs
-- what one day of data costs, not what a year of history costs.
--
-- stg_price_observations states which listings are used-market price observations, once:
-- sold listings (by sale date) and fixed-price asking snapshots (by the day seen) of one used,
-- refurbished or open-box card each, matched to a model, with a USD total. Auctions' current
-- bids are never prices; an auction counts once sold.
CREATE VIEW stg_price_observations AS
SELECT source, listing_id, model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date,
       CAST(NULL AS DATE) AS next_date, total_usd AS usd
FROM listings
WHERE sold AND model IS NOT NULL AND total_usd > 0 AND coalesce(quantity, 1) = 1
  AND condition_class IN ('used', 'refurbished', 'open_box') AND sold_at IS NOT NULL
UNION ALL
SELECT s.source, s.listing_id, l.model, 'asking' AS kind, s.seen_date AS obs_date,
       lead(s.seen_date) OVER (PARTITION BY s.source, s.listing_id ORDER BY s.seen_date) AS next_date,
       s.total_usd AS usd
FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
WHERE NOT l.sold AND l.model IS NOT NULL AND s.total_usd > 0 AND coalesce(l.quantity, 1) = 1
  AND l.condition_class IN ('used', 'refurbished', 'open_box')
  AND coalesce(l.buying_option, '') NOT LIKE '%AUCTION%';

-- The view, materialized; rewritten for the listings each load touches (warehouse/load.py).
-- next_date: an asking snapshot's listing was seen again that day at a price that supersedes
-- this one, so a window ending on or after next_date counts the listing at its newer price.
CREATE TABLE price_observations (
    source      VARCHAR NOT NULL,
    listing_id  VARCHAR NOT NULL,
    model       VARCHAR NOT NULL,
    kind        VARCHAR NOT NULL,              -- sold|asking
    obs_date    DATE NOT NULL,
    next_date   DATE,
    usd         DOUBLE NOT NULL
);

-- Observations per model, kind and day: finds each model's newest observation before a day
-- without reading the observations themselves.
CREATE TABLE price_observation_days (
    model    VARCHAR NOT NULL,
    kind     VARCHAR NOT NULL,
    obs_date DATE NOT NULL,
    n        BIGINT NOT NULL
);

INSERT INTO price_observations BY NAME SELECT * FROM stg_price_observations ORDER BY obs_date;
INSERT INTO price_observation_days BY NAME
SELECT model, kind, obs_date, count(*) AS n FROM price_observations GROUP BY ALL ORDER BY obs_date;
