-- The run's artifact in the Prefect UI: the top of one day's ranking.
SELECT rank, model, memory_gb, price_usd, price_kind, price_as_of, stale, relative_perf, perf_source, perf_per_dollar
FROM ranking_daily
WHERE as_of = $as_of
ORDER BY rank
LIMIT $limit;
