-- A source's rows in perf go before its new ones are inserted: a re-import is the new truth for
-- that source, and one that now publishes nothing keeps nothing.
DELETE FROM perf WHERE source = $source;
-- Its intervals go with them: the next weighting gives the new figures theirs (warehouse/perf_weighted.py).
DELETE FROM perf_interval WHERE source = $source;
