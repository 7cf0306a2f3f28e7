-- rental_prices_daily is rebuilt from the stored offers after every rental load; a (date, model)
-- whose cheapest on-demand or spot price differs from what the offers say means a load stored offers
-- without the rebuild (or the other way round).
WITH expected AS (
    SELECT as_of, model, min(usd_per_gpu_hour) AS od, min(spot_usd_per_gpu_hour) AS spot
    FROM rental_provider_prices GROUP BY ALL
)
SELECT count(*)
FROM expected AS e FULL OUTER JOIN rental_prices_daily AS d ON e.as_of = d.as_of AND e.model = d.model
WHERE e.model IS NULL OR d.model IS NULL
   OR e.od IS DISTINCT FROM d.cheapest_usd_per_gpu_hour OR e.spot IS DISTINCT FROM d.spot_usd_per_gpu_hour;
