-- A source's intervals go with its figures when a new load replaces them (load.replace_perf): the
-- next weighting gives the new figures theirs (warehouse/perf_weighted.py).
DELETE FROM perf_interval WHERE source = $source;
