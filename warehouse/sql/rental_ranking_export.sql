-- Every model of the rental ranking for the downloads and the feed item: ranked on demand first,
-- then spot-only models by spot rank. The columns are rental_export.RENTAL_COLUMNS, in its order
-- (the CSV and JSON are written in that order; the Parquet file takes this query's).
SELECT rank, spot_rank, model, vendor, segment, memory_gb, relative_perf, perf_source, perf_precision,
       reference_gpu, usd_per_gpu_hour, provider, instance_type, gpu_count, median_usd_per_gpu_hour,
       perf_per_usd_hour, usd_per_reference_hour, spot_usd_per_gpu_hour, spot_provider, spot_perf_per_usd_hour,
       spot_usd_per_reference_hour, provider_count, providers, price_as_of, spot_as_of, framework_supported,
       as_of, price_tier, price_age_days, spot_tier, spot_age_days, framework_support
FROM rent_ranking_latest AS r
ORDER BY rank NULLS LAST, spot_rank NULLS LAST, model;
