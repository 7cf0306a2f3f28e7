-- Benchmark figures the spec estimate is fitted on (local measurements are what it is applied to):
-- one per card and precision, the measured figure the ranking uses (a card's combined figure where
-- several sources measured it, docs/performance.md "Refit on the enlarged measured set").
SELECT model, precision, relative_perf, source, method, reference, measured, workloads, uncertainty, as_of
FROM perf
WHERE measured AND source NOT IN ('local', 'weighted')  -- a weighted figure holds the estimate itself
QUALIFY row_number() OVER (
    PARTITION BY model, precision
    ORDER BY (source = 'combined') DESC, coalesce(workloads, 0) DESC, source
) = 1
ORDER BY model, precision;
