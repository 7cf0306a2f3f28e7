-- Measured multi-GPU scaling: the median efficiency per card and GPU count over the sources that
-- measured it, of one precision ($precision; NULL: every precision), leaving out the sources in
-- $exclude (whose multi-GPU runs measure another way of training: models/multi_gpu.py).
SELECT model, num_gpu, median(efficiency), count(DISTINCT source) FROM perf_scaling
WHERE (CAST($precision AS VARCHAR) IS NULL OR precision = $precision)
  AND NOT list_contains(CAST($exclude AS VARCHAR[]), source)
GROUP BY ALL;
