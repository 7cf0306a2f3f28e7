-- Benchmark figures the spec estimate is fitted on (local measurements are what it is applied to).
SELECT model, precision, relative_perf, source, method, reference, measured, workloads, uncertainty, as_of
FROM perf
WHERE measured AND source <> 'local';
