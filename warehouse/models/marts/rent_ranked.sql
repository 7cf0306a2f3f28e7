-- The rental ranking of the newest rental date, written once: relative performance per cheapest
-- on-demand dollar per GPU-hour (perf_per_usd_hour: reference-card hours per dollar;
-- usd_per_reference_hour its inverse, what one hour of the reference card's training costs), and the
-- same on the cheapest spot price apart (spot_rank). Models without a performance figure are not
-- ranked. Older prices rank after every recent one, compared only with each other, so a price of two
-- years ago never leads today's ranking; each price's age on the rental date is price_age_days,
-- spot_age_days.
--
-- The prices are rental_prices_daily's (stored) when no terms are asked; with terms (one provider,
-- lower case; a host reliability floor; verified hosts only) they are rental_model_prices' with
-- those terms, on the same date: the ranking is the same rule over fewer offers. host_reliability and
-- host_verified are the cheapest offer's (NULL without terms). rent_ranking_latest is this with none.
CREATE OR REPLACE MACRO rent_ranked(provider_only, min_host_reliability, verified_hosts_only, comparable_days) AS TABLE
WITH day AS (
    SELECT max(as_of) AS day FROM rental_prices_daily
),
latest AS (
    SELECT p.* FROM rental_prices_daily AS p, day AS d
    WHERE p.as_of = d.day
      AND provider_only IS NULL AND min_host_reliability IS NULL AND NOT verified_hosts_only
    UNION ALL BY NAME
    SELECT p.* FROM rental_model_prices(provider_only, min_host_reliability, verified_hosts_only, comparable_days) AS p,
                    day AS d
    WHERE p.as_of = d.day
      AND (provider_only IS NOT NULL OR min_host_reliability IS NOT NULL OR verified_hosts_only)
),
joined AS (
    SELECT l.as_of, l.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.tdp_w,
           g.framework_supported, g.framework_support, g.desktop_usable,
           p.relative_perf, p.perf_source, p.perf_method, p.perf_precision, p.reference_gpu,
           l.cheapest_usd_per_gpu_hour AS usd_per_gpu_hour, l.provider, l.instance_type, l.gpu_count,
           l.median_usd_per_gpu_hour, l.spot_usd_per_gpu_hour, l.spot_provider,
           p.relative_perf / l.cheapest_usd_per_gpu_hour AS perf_per_usd_hour,
           l.cheapest_usd_per_gpu_hour / p.relative_perf AS usd_per_reference_hour,
           p.relative_perf / l.spot_usd_per_gpu_hour AS spot_perf_per_usd_hour,
           l.spot_usd_per_gpu_hour / p.relative_perf AS spot_usd_per_reference_hour,
           l.provider_count, l.providers, l.offers, l.price_as_of, l.spot_as_of,
           l.price_tier, l.spot_tier,
           CAST(l.as_of - l.price_as_of AS INTEGER) AS price_age_days,
           CAST(l.as_of - l.spot_as_of AS INTEGER) AS spot_age_days,
           l.host_reliability, l.host_verified
    FROM latest AS l
    JOIN rent_perf AS p USING (model)
    LEFT JOIN gpus AS g USING (model)
    WHERE p.relative_perf > 0
)
SELECT CASE WHEN usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
           PARTITION BY usd_per_gpu_hour IS NULL
           ORDER BY price_tier IS NOT DISTINCT FROM 'older', perf_per_usd_hour DESC, model) AS INTEGER) END AS rank,
       CASE WHEN spot_usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
           PARTITION BY spot_usd_per_gpu_hour IS NULL
           ORDER BY spot_tier IS NOT DISTINCT FROM 'older', spot_perf_per_usd_hour DESC, model) AS INTEGER) END AS spot_rank,
       *
FROM joined;
