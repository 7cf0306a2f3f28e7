-- Which listings are used-market price observations, stated once: sold listings (by sale date) and
-- fixed-price asking snapshots (by the day seen) of one used, refurbished or open-box card each,
-- matched to a model, with a USD total (the three rules: used_market_listing, sold_price_observation,
-- asking_price_observation). Materialized in price_observations as listings load.
--
-- next_date: an asking snapshot's listing was seen again that day at a price that supersedes this
-- one, so a window ending on or after next_date counts the listing at its newer price.
CREATE OR REPLACE VIEW stg_price_observations AS
SELECT source, listing_id, model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date,
       CAST(NULL AS DATE) AS next_date, total_usd AS usd
FROM listings
WHERE used_market_listing(model, quantity, condition_class) AND sold_price_observation(sold, sold_at, total_usd)
UNION ALL
SELECT s.source, s.listing_id, l.model, 'asking' AS kind, s.seen_date AS obs_date,
       lead(s.seen_date) OVER (PARTITION BY s.source, s.listing_id ORDER BY s.seen_date) AS next_date,
       s.total_usd AS usd
FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
WHERE used_market_listing(l.model, l.quantity, l.condition_class)
  AND asking_price_observation(l.sold, l.buying_option, s.total_usd);
