-- The catalog cards among $models (the covered ones) that the ranking of $as_of has no row for,
-- described as a ranking row describes a card, with the speed the ranking would give them
-- ($precision, relative to $reference) and their launch price and date: recommend names the likely
-- candidates among them instead of skipping them unsaid (models/unpriced.py).
WITH ref AS (
    SELECT relative_perf AS ref_perf FROM perf_best WHERE precision = $precision AND model = $reference
)
SELECT g.model, g.vendor, g.segment, g.memory_gb, g.launch_price_usd, g.release_date,
       g.framework_supported, g.framework_support, g.desktop_usable, g.form_factor, g.tdp_w,
       coalesce(g.form_factor = 'PCIe passive', false) AS passive,
       p.relative_perf / coalesce((SELECT ref_perf FROM ref), 1.0) AS relative_perf,
       p.source AS perf_source, p.method AS perf_method, p.precision AS perf_precision
FROM gpus AS g
JOIN perf_best AS p ON p.model = g.model AND p.precision = $precision
WHERE coalesce(g.released, true) AND list_contains($models, g.model)
  AND g.model NOT IN (SELECT model FROM ranking_daily WHERE as_of = $as_of)
ORDER BY g.model;
