-- Schema version 17: the rental ranking compares prices of comparable dates, as the used ranking does
-- (migration 012). Each rental card counts with each provider's newest published prices on or
-- before the newest rental date, and a provider's newest may be years older than another's (a table
-- published once, beside catalogs refreshed every day). rental_prices_daily now keeps, per model and
-- date, the cheapest price within 90 days of the date's newest price (RENT_COMPARABLE_DAYS in
-- warehouse/rental.py), an older one only where no recent one exists, with its tier: price_tier and
-- spot_tier ('recent' / 'older'; NULL without such a price). rent_ranking_latest ranks older prices
-- after every recent one, compared only with each other, so a price of two years ago never leads
-- today's ranking, and says each price's age on the rental date (price_age_days, spot_age_days).
ALTER TABLE rental_prices_daily ADD COLUMN price_tier VARCHAR;
ALTER TABLE rental_prices_daily ADD COLUMN spot_tier VARCHAR;

-- Rows stored before this version get their tier now; the next rental load rebuilds them whole
-- (warehouse/sql/rental_prices_daily.sql), choosing a recent price over an older cheaper one.
UPDATE rental_prices_daily AS r
SET price_tier = CASE WHEN r.cheapest_usd_per_gpu_hour IS NULL THEN NULL
                      WHEN r.price_as_of >= n.newest - 90 THEN 'recent' ELSE 'older' END,
    spot_tier = CASE WHEN r.spot_usd_per_gpu_hour IS NULL THEN NULL
                     WHEN r.spot_as_of >= n.newest_spot - 90 THEN 'recent' ELSE 'older' END
FROM (SELECT as_of,
             max(price_as_of) FILTER (WHERE cheapest_usd_per_gpu_hour IS NOT NULL) AS newest,
             max(spot_as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS newest_spot
      FROM rental_prices_daily GROUP BY as_of) AS n
WHERE n.as_of = r.as_of;

CREATE OR REPLACE VIEW rent_ranking_latest AS
WITH latest AS (
    SELECT * FROM rental_prices_daily WHERE as_of = (SELECT max(as_of) FROM rental_prices_daily)
),
joined AS (
    SELECT l.as_of, l.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.tdp_w,
           g.framework_supported, g.desktop_usable,
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
           CAST(l.as_of - l.spot_as_of AS INTEGER) AS spot_age_days
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
