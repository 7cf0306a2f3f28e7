-- The rental ranking of one provider ($provider, lower case) on the newest rental date: its cheapest
-- offer per model (rental_provider_prices), in rent_ranking_latest's columns, ranked among its own
-- offers, prices within $comparable_days of its newest first, as there (migration 017). Filters as in
-- rent_ranking.sql.
WITH latest AS (
    SELECT * FROM rental_provider_prices
    WHERE as_of = (SELECT max(as_of) FROM rental_prices_daily) AND provider = $provider
),
joined AS (
    SELECT l.as_of, l.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.tdp_w,
           g.framework_supported, g.framework_support, g.desktop_usable,
           p.relative_perf, p.perf_source, p.perf_method, p.perf_precision, p.reference_gpu,
           l.usd_per_gpu_hour, CASE WHEN l.usd_per_gpu_hour IS NOT NULL THEN l.provider END AS provider,
           l.instance_type, l.gpu_count, l.usd_per_gpu_hour AS median_usd_per_gpu_hour,
           l.spot_usd_per_gpu_hour, CASE WHEN l.spot_usd_per_gpu_hour IS NOT NULL THEN l.provider END AS spot_provider,
           p.relative_perf / l.usd_per_gpu_hour AS perf_per_usd_hour,
           l.usd_per_gpu_hour / p.relative_perf AS usd_per_reference_hour,
           p.relative_perf / l.spot_usd_per_gpu_hour AS spot_perf_per_usd_hour,
           l.spot_usd_per_gpu_hour / p.relative_perf AS spot_usd_per_reference_hour,
           1 AS provider_count, l.provider AS providers, CAST(l.offers AS INTEGER) AS offers,
           coalesce(l.price_as_of, l.spot_as_of) AS price_as_of, l.spot_as_of
    FROM latest AS l
    JOIN rent_perf AS p USING (model)
    LEFT JOIN gpus AS g USING (model)
    WHERE p.relative_perf > 0
),
tiered AS (
    SELECT *,
           CASE WHEN usd_per_gpu_hour IS NULL THEN NULL
                WHEN price_as_of >= max(price_as_of) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) OVER () - $comparable_days
                THEN 'recent' ELSE 'older' END AS price_tier,
           CASE WHEN spot_usd_per_gpu_hour IS NULL THEN NULL
                WHEN spot_as_of >= max(spot_as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) OVER () - $comparable_days
                THEN 'recent' ELSE 'older' END AS spot_tier,
           CAST(as_of - price_as_of AS INTEGER) AS price_age_days,
           CAST(as_of - spot_as_of AS INTEGER) AS spot_age_days
    FROM joined
),
ranked AS (
    SELECT CASE WHEN usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
               PARTITION BY usd_per_gpu_hour IS NULL
               ORDER BY price_tier = 'older', perf_per_usd_hour DESC, model) AS INTEGER) END AS rank,
           CASE WHEN spot_usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
               PARTITION BY spot_usd_per_gpu_hour IS NULL
               ORDER BY spot_tier = 'older', spot_perf_per_usd_hour DESC, model) AS INTEGER) END AS spot_rank,
           *
    FROM tiered
)
SELECT *
FROM ranked
WHERE ($min_memory IS NULL OR memory_gb >= $min_memory)
  AND (CASE WHEN $spot THEN spot_rank IS NOT NULL ELSE rank IS NOT NULL END)
ORDER BY CASE WHEN $spot THEN spot_rank ELSE rank END, model
LIMIT coalesce($top, 1000000);
