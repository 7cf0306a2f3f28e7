-- The performance-per-dollar ranking of every as_of date from $start to $end ($precision,
-- $reference, $window_days): the daily step runs it for one day, a backfill for a range.
-- Performance comes from perf_best (measured beats estimated), rescaled so the reference card is
-- 1.0. Every released model with a price and a performance is ranked; a price older than the
-- window is kept but flagged stale. Ties are broken by model name, so the order is deterministic.
DELETE FROM ranking_daily WHERE as_of BETWEEN $start AND $end;

INSERT INTO ranking_daily BY NAME
WITH best_perf AS (
    SELECT * FROM perf_best WHERE precision = $precision
),
ref AS (
    SELECT relative_perf AS ref_perf FROM best_perf WHERE model = $reference
),
joined AS (
    SELECT p.as_of, g.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.bandwidth_gb_s,
           bp.relative_perf / coalesce((SELECT ref_perf FROM ref), 1.0) AS relative_perf,
           bp.source AS perf_source, bp.method AS perf_method, bp.precision AS perf_precision,
           $reference AS reference_gpu,
           p.price_usd, p.price_kind, p.price_n, p.price_q1, p.price_q3, p.price_as_of,
           g.framework_supported, g.desktop_usable, g.tdp_w,
           p.price_as_of <= p.as_of - $window_days AS stale
    FROM prices_daily AS p
    JOIN gpus AS g USING (model)
    JOIN best_perf AS bp ON bp.model = p.model
    WHERE p.as_of BETWEEN $start AND $end AND coalesce(g.released, true) AND p.price_usd > 0
)
SELECT *, round(relative_perf / price_usd * 1000, 4) AS perf_per_dollar,
       CAST(row_number() OVER (PARTITION BY as_of ORDER BY relative_perf / price_usd DESC, model) AS INTEGER) AS rank
FROM joined;
