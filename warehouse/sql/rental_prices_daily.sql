-- Rebuild rental_prices_daily (warehouse/models/marts/) from every stored offer: per model and date, across
-- providers (rental_provider_prices: each provider at its newest price, each source at its newest
-- capture on or before the date). Small enough (a few hundred models x dates) to rebuild whole after
-- each rental load, so the history always follows the offers. Ties go to the provider name. The
-- chosen on-demand and spot prices are each one arg_min over (older, price, provider), carrying
-- the provider, instance, date and tier that go with them.
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
),
chosen AS (
    SELECT as_of, model,
           arg_min({'usd': usd_per_gpu_hour, 'provider': provider, 'instance_type': instance_type,
                    'gpu_count': gpu_count, 'dated': price_as_of, 'recent': recent},
                   {'older': NOT recent, 'usd': usd_per_gpu_hour, 'provider': provider})
               FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS price,
           arg_min({'usd': spot_usd_per_gpu_hour, 'provider': provider, 'dated': spot_as_of, 'recent': spot_recent},
                   {'older': NOT spot_recent, 'usd': spot_usd_per_gpu_hour, 'provider': provider})
               FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS spot,
           coalesce(median(usd_per_gpu_hour) FILTER (WHERE recent), median(usd_per_gpu_hour)) AS median_usd_per_gpu_hour,
           CAST(count(*) AS INTEGER) AS provider_count,
           string_agg(provider, ', ' ORDER BY provider) AS providers,
           CAST(sum(offers) AS INTEGER) AS offers
    FROM dated
    GROUP BY as_of, model
)
SELECT as_of, model,
       price.usd AS cheapest_usd_per_gpu_hour, price.provider, price.instance_type, price.gpu_count,
       median_usd_per_gpu_hour,
       spot.usd AS spot_usd_per_gpu_hour, spot.provider AS spot_provider,
       provider_count, providers, offers,
       coalesce(price.dated, spot.dated) AS price_as_of, spot.dated AS spot_as_of,
       CASE WHEN price.recent THEN 'recent' WHEN NOT price.recent THEN 'older' END AS price_tier,
       CASE WHEN spot.recent THEN 'recent' WHEN NOT spot.recent THEN 'older' END AS spot_tier
FROM chosen;
