-- rental_prices_daily is rebuilt from the stored offers after every rental load; a (date, model) the
-- offers price differently means a load stored offers without the rebuild (or the other way round):
-- an on-demand or spot price one side has and the other lacks, or a stored price that is no
-- provider's price of that date, or that one at least as new undercuts (the rebuild takes the
-- cheapest price within its window of the newest, migration 017, and one at least as new is always
-- within it).
WITH offered AS (
    SELECT as_of, model, 'on demand' AS kind, usd_per_gpu_hour AS usd, price_as_of AS dated
    FROM rental_provider_prices WHERE usd_per_gpu_hour IS NOT NULL
    UNION ALL
    SELECT as_of, model, 'spot', spot_usd_per_gpu_hour, spot_as_of
    FROM rental_provider_prices WHERE spot_usd_per_gpu_hour IS NOT NULL
),
stored AS (
    SELECT as_of, model, 'on demand' AS kind, cheapest_usd_per_gpu_hour AS usd, price_as_of AS dated
    FROM rental_prices_daily WHERE cheapest_usd_per_gpu_hour IS NOT NULL
    UNION ALL
    SELECT as_of, model, 'spot', spot_usd_per_gpu_hour, spot_as_of
    FROM rental_prices_daily WHERE spot_usd_per_gpu_hour IS NOT NULL
),
priced_on_one_side AS (
    SELECT 1
    FROM (SELECT DISTINCT as_of, model, kind FROM offered) AS o
    FULL OUTER JOIN stored AS s ON o.as_of = s.as_of AND o.model = s.model AND o.kind = s.kind
    WHERE o.model IS NULL OR s.model IS NULL
),
not_the_rebuilds AS (
    SELECT 1
    FROM stored AS s
    WHERE NOT EXISTS (SELECT 1 FROM offered AS o WHERE o.as_of = s.as_of AND o.model = s.model AND o.kind = s.kind
                                                   AND o.usd = s.usd AND o.dated = s.dated)
       OR EXISTS (SELECT 1 FROM offered AS o WHERE o.as_of = s.as_of AND o.model = s.model AND o.kind = s.kind
                                               AND o.usd < s.usd AND o.dated >= s.dated)
)
SELECT (SELECT count(*) FROM priced_on_one_side) + (SELECT count(*) FROM not_the_rebuilds);
