-- Measured multi-GPU scaling: the median efficiency per card and GPU count.
SELECT model, num_gpu, median(efficiency) FROM perf_scaling GROUP BY ALL;
