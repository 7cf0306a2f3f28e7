-- Measured multi-GPU scaling: the median efficiency per card and GPU count over the sources that
-- measured it, of one precision ($precision; NULL: every precision, as before precisions were asked).
SELECT model, num_gpu, median(efficiency), count(DISTINCT source) FROM perf_scaling
WHERE CAST($precision AS VARCHAR) IS NULL OR precision = $precision
GROUP BY ALL;
