SELECT model, precision, source, workload, ratio FROM perf_workload ORDER BY ALL;
