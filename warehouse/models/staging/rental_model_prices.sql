-- The rental price rule, per model: on each date, across the providers of
-- rental_provider_prices_meeting (with the same terms), the cheapest on-demand and spot prices and
-- the median of the providers' on-demand ones. rental_prices_daily stores it with no terms; the
-- rental ranking with host terms or one provider (rent_ranked) computes it with them. Ties go to the
-- provider name. The chosen on-demand and spot prices are each one arg_min over (older, price,
-- provider), carrying the provider, instance, date, tier and host terms that go with them.
--
-- Comparable dates (migration 017, comparable_days): a provider's newest price may be years older
-- than another's (a table published once, beside catalogs refreshed daily). A price within
-- comparable_days of the date's newest price is recent; the cheapest recent price stands for the
-- model, an older one only where no recent price exists, and then its tier says 'older' (the
-- rental ranking puts such rows after every recent one). The same for spot prices, apart. The median
-- across providers is of the same prices: the recent ones where any is, else all of them.
CREATE OR REPLACE MACRO rental_model_prices(provider_only, min_host_reliability, verified_hosts_only, comparable_days) AS TABLE
WITH dated AS (
    SELECT *,
           price_as_of >= max(price_as_of) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY as_of)
               - comparable_days AS recent,
           spot_as_of >= max(spot_as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY as_of)
               - comparable_days AS spot_recent
    FROM rental_provider_prices_meeting(provider_only, min_host_reliability, verified_hosts_only)
),
chosen AS (
    SELECT as_of, model,
           arg_min({'usd': usd_per_gpu_hour, 'provider': provider, 'instance_type': instance_type,
                    'gpu_count': gpu_count, 'dated': price_as_of, 'recent': recent,
                    'reliability': host_reliability, 'verified': host_verified},
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
       CASE WHEN spot.recent THEN 'recent' WHEN NOT spot.recent THEN 'older' END AS spot_tier,
       price.reliability AS host_reliability, price.verified AS host_verified
FROM chosen;
