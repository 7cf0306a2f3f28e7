-- Rebuild rental_prices_daily (migration 011) from every stored offer: per model and date, across
-- providers (rental_provider_prices: each provider at its cheaper source, each source at its newest
-- capture on or before the date). Small enough (a few hundred models x dates) to rebuild whole after
-- each rental load, so the history always follows the offers. Ties go to the provider name.
DELETE FROM rental_prices_daily;

INSERT INTO rental_prices_daily BY NAME
SELECT as_of, model,
       min(usd_per_gpu_hour) AS cheapest_usd_per_gpu_hour,
       first(provider ORDER BY usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS provider,
       first(instance_type ORDER BY usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS instance_type,
       first(gpu_count ORDER BY usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS gpu_count,
       median(usd_per_gpu_hour) AS median_usd_per_gpu_hour,
       min(spot_usd_per_gpu_hour) AS spot_usd_per_gpu_hour,
       first(provider ORDER BY spot_usd_per_gpu_hour, provider) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS spot_provider,
       CAST(count(*) AS INTEGER) AS provider_count,
       string_agg(provider, ', ' ORDER BY provider) AS providers,
       CAST(sum(offers) AS INTEGER) AS offers,
       coalesce(first(price_as_of ORDER BY usd_per_gpu_hour, provider) FILTER (WHERE usd_per_gpu_hour IS NOT NULL),
                first(spot_as_of ORDER BY spot_usd_per_gpu_hour, provider) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL)) AS price_as_of,
       first(spot_as_of ORDER BY spot_usd_per_gpu_hour, provider) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS spot_as_of
FROM rental_provider_prices
GROUP BY as_of, model;
