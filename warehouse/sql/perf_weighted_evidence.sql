-- The evidence a card's weighted figure combines (warehouse/perf_weighted.py): every measured
-- source's figure and the spec estimate; derived figures (the measured-only combination, an earlier
-- weighted figure) and local measurements are not evidence.
SELECT model, precision, source, relative_perf, method, measured, workloads, uncertainty, as_of
FROM perf
WHERE source NOT IN ('combined', 'weighted', 'local')
ORDER BY precision, model, source;
