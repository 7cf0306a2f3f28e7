-- Benchmark figures are stored under their tables' names (lambda-pytorch-2024 for the source
-- lambda): each table's load time and content date, for the exports' sources list. The last column
-- says the table holds inference figures only, which are listed under their source alone.
SELECT source, max(loaded_at), max(as_of), false FROM perf GROUP BY source
UNION ALL SELECT source, NULL, max(as_of), true FROM perf_inference GROUP BY source;
