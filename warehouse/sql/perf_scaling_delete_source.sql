-- A source's rows in perf_scaling go before its new ones are inserted: a re-import is the new truth for
-- that source, and one that now publishes nothing keeps nothing.
DELETE FROM perf_scaling WHERE source = $source;
