-- `gpuvalue perf MODEL`: every figure of one card at one precision, the one the ranking uses first
-- (perf_best's order), then the other measured sources, then the spec estimate.
SELECT p.source, p.relative_perf, p.workloads, p.measured, p.method,
       (p.source = b.source) AS ranked
FROM perf AS p
LEFT JOIN perf_best AS b USING (model, precision)
WHERE p.model = $model AND p.precision = $precision
ORDER BY (p.source = b.source) DESC, p.measured DESC, (p.source = 'combined') DESC, p.source;
