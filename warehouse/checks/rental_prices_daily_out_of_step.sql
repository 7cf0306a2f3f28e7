-- rental_prices_daily is rebuilt from the stored offers after every rental load; a (date, model) the
-- offers price differently means a load stored offers without the rebuild (or the other way round):
-- a model one side has and the other lacks, an on-demand or spot price one side has and the other
-- lacks, or a stored price that is no provider's price of that date, or that one at least as new
-- undercuts (the rebuild takes the cheapest price within its window of the newest, migration 017,
-- and one at least as new is always within it).
WITH offered AS (
    SELECT as_of, model, count(usd_per_gpu_hour) AS on_demand, count(spot_usd_per_gpu_hour) AS spot
    FROM rental_provider_prices GROUP BY ALL
),
models_out_of_step AS (
    SELECT 1
    FROM offered AS o FULL OUTER JOIN rental_prices_daily AS d ON o.as_of = d.as_of AND o.model = d.model
    WHERE o.model IS NULL OR d.model IS NULL
       OR (o.on_demand > 0) IS DISTINCT FROM (d.cheapest_usd_per_gpu_hour IS NOT NULL)
       OR (o.spot > 0) IS DISTINCT FROM (d.spot_usd_per_gpu_hour IS NOT NULL)
),
on_demand_out_of_step AS (
    SELECT 1
    FROM rental_prices_daily AS d
    WHERE d.cheapest_usd_per_gpu_hour IS NOT NULL
      AND (NOT EXISTS (SELECT 1 FROM rental_provider_prices AS p
                       WHERE p.as_of = d.as_of AND p.model = d.model
                         AND p.usd_per_gpu_hour = d.cheapest_usd_per_gpu_hour AND p.price_as_of = d.price_as_of)
           OR EXISTS (SELECT 1 FROM rental_provider_prices AS p
                      WHERE p.as_of = d.as_of AND p.model = d.model
                        AND p.usd_per_gpu_hour < d.cheapest_usd_per_gpu_hour AND p.price_as_of >= d.price_as_of))
),
spot_out_of_step AS (
    SELECT 1
    FROM rental_prices_daily AS d
    WHERE d.spot_usd_per_gpu_hour IS NOT NULL
      AND (NOT EXISTS (SELECT 1 FROM rental_provider_prices AS p
                       WHERE p.as_of = d.as_of AND p.model = d.model
                         AND p.spot_usd_per_gpu_hour = d.spot_usd_per_gpu_hour AND p.spot_as_of = d.spot_as_of)
           OR EXISTS (SELECT 1 FROM rental_provider_prices AS p
                      WHERE p.as_of = d.as_of AND p.model = d.model
                        AND p.spot_usd_per_gpu_hour < d.spot_usd_per_gpu_hour AND p.spot_as_of >= d.spot_as_of))
)
SELECT (SELECT count(*) FROM models_out_of_step) + (SELECT count(*) FROM on_demand_out_of_step)
       + (SELECT count(*) FROM spot_out_of_step);
