-- `gpuvalue perf MODEL`: every figure of one card at one precision, the one the ranking uses first
-- (perf_best's order), then the other measured sources, then the spec estimate; each rescaled to
-- $reference's ranked figure, as perf_relative.sql rescales the table above it (with another
-- reference than the stored one, the two tables would otherwise differ for the same figure).
WITH ref AS (SELECT relative_perf AS r FROM perf_best WHERE model = $reference AND precision = $precision)
SELECT p.source, p.relative_perf / coalesce((SELECT r FROM ref), 1.0) AS relative_perf, p.workloads, p.measured,
       p.method, (p.source = b.source) AS ranked,
       p.perf_low / coalesce((SELECT r FROM ref), 1.0) AS perf_low,
       p.perf_high / coalesce((SELECT r FROM ref), 1.0) AS perf_high
FROM perf_with_interval AS p
LEFT JOIN perf_best AS b USING (model, precision)
WHERE p.model = $model AND p.precision = $precision
ORDER BY (p.source = b.source) DESC, p.measured DESC, (p.source = 'combined') DESC, p.source;
