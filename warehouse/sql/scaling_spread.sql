-- The spread of the measured multi-GPU scaling per card and GPU count: the lowest and highest efficiency
-- a source measured, with scaling_efficiency.sql's filters; it widens a measured setup's interval.
SELECT model, num_gpu, min(efficiency), max(efficiency) FROM perf_scaling
WHERE (CAST($precision AS VARCHAR) IS NULL OR precision = $precision)
  AND NOT list_contains(CAST($exclude AS VARCHAR[]), source)
GROUP BY ALL;
