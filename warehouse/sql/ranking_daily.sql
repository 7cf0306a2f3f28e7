-- Today's performance-per-dollar ranking ($as_of, $precision, $reference, $window_days).
-- Performance: measured beats estimated (local measurement, then benchmarks, then the spec
-- estimate), rescaled so the reference card is 1.0. Every released model with a price and a
-- performance is ranked; a price older than the window is kept but flagged stale. Ties are
-- broken by model name so the order is deterministic.
DELETE FROM ranking_daily WHERE as_of = $as_of;

INSERT INTO ranking_daily BY NAME
WITH best_perf AS (
    SELECT *, row_number() OVER (
        PARTITION BY model
        ORDER BY measured DESC, (source = 'local') DESC, coalesce(workloads, 0) DESC, source
    ) AS pick
    FROM perf WHERE precision = $precision
),
ref AS (
    SELECT relative_perf AS ref_perf FROM best_perf WHERE model = $reference AND pick = 1
),
joined AS (
    SELECT p.as_of, g.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.bandwidth_gb_s,
           bp.relative_perf / coalesce((SELECT ref_perf FROM ref), 1.0) AS relative_perf,
           bp.source AS perf_source, bp.method AS perf_method, bp.precision AS perf_precision,
           $reference AS reference_gpu,
           p.price_usd, p.price_kind, p.price_n, p.price_q1, p.price_q3, p.price_as_of,
           g.framework_supported, g.desktop_usable, g.tdp_w,
           p.price_as_of <= CAST($as_of AS DATE) - $window_days AS stale
    FROM prices_daily AS p
    JOIN gpus AS g USING (model)
    JOIN best_perf AS bp ON bp.model = p.model AND bp.pick = 1
    WHERE p.as_of = $as_of AND coalesce(g.released, true) AND p.price_usd > 0
)
SELECT *, round(relative_perf / price_usd * 1000, 4) AS perf_per_dollar,
       CAST(row_number() OVER (ORDER BY relative_perf / price_usd DESC, model) AS INTEGER) AS rank
FROM joined;
