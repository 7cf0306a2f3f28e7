-- The rental ranking of the newest rental date from the offers whose host meets the user's terms
-- (`gpuvalue rent --min-reliability R --verified`), in rent_ranking_latest's columns. Only offers that
-- state the host's reliability ($min_reliability, NULL: any) and verification ($verified: verified
-- hosts only) count: a provider that publishes neither for its offers cannot be said to meet them.
-- Otherwise as rental_provider_prices and rental_prices_daily do it for all offers: each (source,
-- provider) at its newest capture on or before the date, each provider's newest price for a model,
-- the cheapest of those within $comparable_days of the newest standing for the model (an older one
-- only where none is recent), spot prices apart. $provider (lower case, NULL: any) and the filters of
-- rent_ranking.sql apply as there. host_reliability and host_verified are the cheapest offer's.
WITH day AS (
    SELECT max(as_of) AS day FROM rental_prices_daily
),
captures AS (
    SELECT o.source, o.provider, max(o.as_of) AS as_of
    FROM rental_offers AS o, day AS d
    WHERE o.as_of <= d.day
    GROUP BY ALL
),
offers AS (
    SELECT d.day, o.*
    FROM captures AS c
    JOIN rental_offers AS o USING (source, provider, as_of)
    CROSS JOIN day AS d
    WHERE o.model IS NOT NULL
      AND ($provider IS NULL OR o.provider = $provider)
      AND ($min_reliability IS NULL OR o.reliability >= $min_reliability)
      AND (NOT $verified OR o.verified)
),
newest AS (
    SELECT *,
           max(as_of) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY model, provider) AS price_day,
           max(as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY model, provider) AS spot_day
    FROM offers
),
per_provider AS (
    SELECT day, model, provider,
           arg_min({'usd': usd_per_gpu_hour, 'instance_type': instance_type, 'gpu_count': gpu_count, 'dated': as_of,
                    'reliability': reliability, 'verified': verified}, usd_per_gpu_hour)
               FILTER (WHERE as_of = price_day AND usd_per_gpu_hour IS NOT NULL) AS price,
           arg_min({'usd': spot_usd_per_gpu_hour, 'dated': as_of}, spot_usd_per_gpu_hour)
               FILTER (WHERE as_of = spot_day AND spot_usd_per_gpu_hour IS NOT NULL) AS spot,
           count(*) AS offers
    FROM newest
    GROUP BY day, model, provider
),
dated AS (
    SELECT *,
           price.dated >= max(price.dated) OVER () - $comparable_days AS recent,
           spot.dated >= max(spot.dated) OVER () - $comparable_days AS spot_recent
    FROM per_provider
),
chosen AS (
    SELECT day AS as_of, model,
           arg_min({'usd': price.usd, 'provider': provider, 'instance_type': price.instance_type,
                    'gpu_count': price.gpu_count, 'dated': price.dated, 'recent': recent,
                    'reliability': price.reliability, 'verified': price.verified},
                   {'older': NOT recent, 'usd': price.usd, 'provider': provider}) FILTER (WHERE price IS NOT NULL) AS price,
           arg_min({'usd': spot.usd, 'provider': provider, 'dated': spot.dated, 'recent': spot_recent},
                   {'older': NOT spot_recent, 'usd': spot.usd, 'provider': provider}) FILTER (WHERE spot IS NOT NULL) AS spot,
           coalesce(median(price.usd) FILTER (WHERE recent), median(price.usd)) AS median_usd_per_gpu_hour,
           CAST(count(*) AS INTEGER) AS provider_count,
           string_agg(provider, ', ' ORDER BY provider) AS providers,
           CAST(sum(offers) AS INTEGER) AS offers
    FROM dated
    GROUP BY day, model
),
joined AS (
    SELECT c.as_of, c.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.tdp_w,
           g.framework_supported, g.framework_support, g.desktop_usable,
           p.relative_perf, p.perf_source, p.perf_method, p.perf_precision, p.reference_gpu,
           c.price.usd AS usd_per_gpu_hour, c.price.provider AS provider, c.price.instance_type AS instance_type,
           c.price.gpu_count AS gpu_count, c.median_usd_per_gpu_hour,
           c.spot.usd AS spot_usd_per_gpu_hour, c.spot.provider AS spot_provider,
           p.relative_perf / c.price.usd AS perf_per_usd_hour,
           c.price.usd / p.relative_perf AS usd_per_reference_hour,
           p.relative_perf / c.spot.usd AS spot_perf_per_usd_hour,
           c.spot.usd / p.relative_perf AS spot_usd_per_reference_hour,
           c.provider_count, c.providers, c.offers,
           coalesce(c.price.dated, c.spot.dated) AS price_as_of, c.spot.dated AS spot_as_of,
           CASE WHEN c.price.recent THEN 'recent' WHEN NOT c.price.recent THEN 'older' END AS price_tier,
           CASE WHEN c.spot.recent THEN 'recent' WHEN NOT c.spot.recent THEN 'older' END AS spot_tier,
           CAST(c.as_of - coalesce(c.price.dated, c.spot.dated) AS INTEGER) AS price_age_days,
           CAST(c.as_of - c.spot.dated AS INTEGER) AS spot_age_days,
           c.price.reliability AS host_reliability, c.price.verified AS host_verified
    FROM chosen AS c
    JOIN rent_perf AS p USING (model)
    LEFT JOIN gpus AS g USING (model)
    WHERE p.relative_perf > 0
),
ranked AS (
    SELECT CASE WHEN usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
               PARTITION BY usd_per_gpu_hour IS NULL
               ORDER BY price_tier IS NOT DISTINCT FROM 'older', perf_per_usd_hour DESC, model) AS INTEGER) END AS rank,
           CASE WHEN spot_usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
               PARTITION BY spot_usd_per_gpu_hour IS NULL
               ORDER BY spot_tier IS NOT DISTINCT FROM 'older', spot_perf_per_usd_hour DESC, model) AS INTEGER) END AS spot_rank,
           *
    FROM joined
)
SELECT *
FROM ranked
WHERE ($min_memory IS NULL OR memory_gb >= $min_memory)
  AND (CASE WHEN $spot THEN spot_rank IS NOT NULL ELSE rank IS NOT NULL END)
ORDER BY CASE WHEN $spot THEN spot_rank ELSE rank END, model
LIMIT coalesce($top, 1000000);
