-- `gpuvalue perf --inference`: one single-card inference figure per (model, workload, phase), the
-- newest source's when several measured it. Text generation first, workloads in the benchmark's
-- column order (8B Q4_K_M, 8B F16, 70B Q4_K_M, 70B F16: descending names), fastest first.
-- Multi-card rows (one model split over gpu_count cards) stay in perf_inference for SQL users.
SELECT model, workload, phase, tokens_per_s, source, as_of
FROM perf_inference
WHERE gpu_count = 1
QUALIFY row_number() OVER (PARTITION BY model, workload, phase ORDER BY as_of DESC NULLS LAST, source) = 1
ORDER BY phase DESC, workload DESC, tokens_per_s DESC, model;
