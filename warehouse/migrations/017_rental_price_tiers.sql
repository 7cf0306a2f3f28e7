-- Schema version 17: the rental ranking compares prices of comparable dates, as the used ranking does
-- (version 12): rental_prices_daily keeps each price's tier, price_tier and spot_tier
-- (marts/rental_prices_daily.sql, marts/rent_ranking_latest.sql).
ALTER TABLE rental_prices_daily ADD COLUMN IF NOT EXISTS price_tier VARCHAR;
ALTER TABLE rental_prices_daily ADD COLUMN IF NOT EXISTS spot_tier VARCHAR;

-- Rows stored before this version get their tier now; the next rental load rebuilds them whole
-- (warehouse/sql/rental_prices_daily.sql), choosing a recent price over an older cheaper one.
UPDATE rental_prices_daily AS r
SET price_tier = CASE WHEN r.cheapest_usd_per_gpu_hour IS NULL THEN NULL
                      WHEN r.price_as_of >= n.newest - 90 THEN 'recent' ELSE 'older' END,
    spot_tier = CASE WHEN r.spot_usd_per_gpu_hour IS NULL THEN NULL
                     WHEN r.spot_as_of >= n.newest_spot - 90 THEN 'recent' ELSE 'older' END
FROM (SELECT as_of,
             max(price_as_of) FILTER (WHERE cheapest_usd_per_gpu_hour IS NOT NULL) AS newest,
             max(spot_as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS newest_spot
      FROM rental_prices_daily GROUP BY as_of) AS n
WHERE n.as_of = r.as_of;
