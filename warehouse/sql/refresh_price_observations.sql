-- Keep price_observations current through a load of incoming_listings (the batch, one row per
-- listing), run right after upsert_listings.sql; touched_listings (source, listing_id) holds the
-- batch's listings that existed before it. Then recount the days.
--
-- The rules are stg_price_observations' macros (warehouse/models/staging/: used_market_listing,
-- sold_price_observation, asking_price_observation), applied where they cost least; the view itself,
-- filtered afterwards, would read the whole history on every load.
-- tests/warehouse/test_price_observations.py holds the table equal to the view after any loads.
--
-- A listing seen before: its model, condition or sale may have changed every one of its rows, and
-- its new snapshot changes the previous one's next_date, so all its rows are written again.
DELETE FROM price_observations AS o USING touched_listings AS t
WHERE o.source = t.source AND o.listing_id = t.listing_id;

INSERT INTO price_observations BY NAME
WITH touched AS (
    SELECT l.* FROM listings AS l SEMI JOIN touched_listings AS t USING (source, listing_id)
    WHERE used_market_listing(l.model, l.quantity, l.condition_class)
)
SELECT source, listing_id, model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date,
       CAST(NULL AS DATE) AS next_date, total_usd AS usd
FROM touched
WHERE sold_price_observation(sold, sold_at, total_usd)
UNION ALL
SELECT s.source, s.listing_id, l.model, 'asking' AS kind, s.seen_date AS obs_date,
       lead(s.seen_date) OVER (PARTITION BY s.source, s.listing_id ORDER BY s.seen_date) AS next_date,
       s.total_usd AS usd
FROM listing_snapshots AS s JOIN touched AS l USING (source, listing_id)
WHERE asking_price_observation(l.sold, l.buying_option, s.total_usd)
ORDER BY obs_date;

-- A new listing is stored as the batch has it, with one snapshot (the day it was seen): its
-- observation comes straight from the batch, without reading the history.
INSERT INTO price_observations BY NAME
SELECT source, listing_id, model, CASE WHEN sold THEN 'sold' ELSE 'asking' END AS kind,
       CAST(CASE WHEN sold THEN sold_at ELSE last_seen END AS DATE) AS obs_date,
       CAST(NULL AS DATE) AS next_date, total_usd AS usd
FROM incoming_listings AS i ANTI JOIN touched_listings AS t USING (source, listing_id)
WHERE used_market_listing(model, quantity, condition_class)
  AND (sold_price_observation(sold, sold_at, total_usd) OR asking_price_observation(sold, buying_option, total_usd));

DELETE FROM price_observation_days;

INSERT INTO price_observation_days BY NAME
SELECT model, kind, obs_date, count(*) AS n FROM price_observations GROUP BY ALL ORDER BY obs_date;
