-- Rebuild rental_prices_daily (migration 011) from every stored offer: per model and date, across
-- providers (rental_provider_prices: each provider at its cheaper source, each source at its newest
-- capture on or before the date). Small enough (a few hundred models x dates) to rebuild whole after
-- each rental load, so the history always follows the offers. Ties go to the provider name.
--
-- Comparable dates (migration 017, $comparable_days): a provider's newest price may be years older
-- than another's (a table published once, beside catalogs refreshed daily). A price within
-- $comparable_days of the date's newest price is recent; the cheapest recent price stands for the
-- model, an older one only where no recent price exists, and then its tier says 'older' (the
-- rental ranking puts such rows after every recent one). The same for spot prices, apart. The median
-- across providers is of the same prices: the recent ones where any is, else all of them.
DELETE FROM rental_prices_daily;

INSERT INTO rental_prices_daily BY NAME
WITH dated AS (
    SELECT *,
           price_as_of >= max(price_as_of) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY as_of)
               - $comparable_days AS recent,
           spot_as_of >= max(spot_as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY as_of)
               - $comparable_days AS spot_recent
    FROM rental_provider_prices
)
SELECT as_of, model,
       coalesce(min(usd_per_gpu_hour) FILTER (WHERE recent), min(usd_per_gpu_hour)) AS cheapest_usd_per_gpu_hour,
       first(provider ORDER BY recent DESC, usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS provider,
       first(instance_type ORDER BY recent DESC, usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS instance_type,
       first(gpu_count ORDER BY recent DESC, usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS gpu_count,
       coalesce(median(usd_per_gpu_hour) FILTER (WHERE recent), median(usd_per_gpu_hour)) AS median_usd_per_gpu_hour,
       coalesce(min(spot_usd_per_gpu_hour) FILTER (WHERE spot_recent), min(spot_usd_per_gpu_hour)) AS spot_usd_per_gpu_hour,
       first(provider ORDER BY spot_recent DESC, spot_usd_per_gpu_hour, provider) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS spot_provider,
       CAST(count(*) AS INTEGER) AS provider_count,
       string_agg(provider, ', ' ORDER BY provider) AS providers,
       CAST(sum(offers) AS INTEGER) AS offers,
       coalesce(first(price_as_of ORDER BY recent DESC, usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL),
                first(spot_as_of ORDER BY spot_recent DESC, spot_usd_per_gpu_hour, provider) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL)) AS price_as_of,
       first(spot_as_of ORDER BY spot_recent DESC, spot_usd_per_gpu_hour, provider) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS spot_as_of,
       CASE WHEN count(usd_per_gpu_hour) = 0 THEN NULL
            WHEN bool_or(recent) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) THEN 'recent' ELSE 'older' END AS price_tier,
       CASE WHEN count(spot_usd_per_gpu_hour) = 0 THEN NULL
            WHEN bool_or(spot_recent) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) THEN 'recent' ELSE 'older' END AS spot_tier
FROM dated
GROUP BY as_of, model;
