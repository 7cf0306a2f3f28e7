-- The per-workload ratios of those other measured sources, kept under the combined rows
-- ($skip: as in harness_other_measured_perf).
SELECT model, precision, source, workload, ratio
FROM perf_workload
WHERE NOT list_contains($skip, source)
ORDER BY ALL;
