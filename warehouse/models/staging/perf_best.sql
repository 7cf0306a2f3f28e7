-- Which performance figure counts for each model and precision, in one place. Measured beats
-- estimated; among measured figures a local measurement, then the weighted figure (every source and
-- the held-out estimate, each by its reliability: docs/performance.md, "Precision-weighted figures"),
-- then the measured-only combination (what the estimate is fitted on), then more workloads beat fewer,
-- then by source name, so the choice is deterministic; with its interval. The interval is looked up
-- per row rather than joined before the window: DuckDB then answers perf_relative.sql's correlated
-- name filter wrongly (tests/warehouse/test_name_queries.py), and a backup's import would need
-- perf_with_interval before this view.
CREATE OR REPLACE VIEW perf_best AS
SELECT * EXCLUDE (pick),
       (SELECT i.perf_low FROM perf_interval AS i
        WHERE i.model = b.model AND i.precision = b.precision AND i.source = b.source) AS perf_low,
       (SELECT i.perf_high FROM perf_interval AS i
        WHERE i.model = b.model AND i.precision = b.precision AND i.source = b.source) AS perf_high
FROM (
    SELECT *, row_number() OVER (
        PARTITION BY model, precision
        ORDER BY measured DESC, (source = 'local') DESC, (source = 'weighted') DESC, (source = 'combined') DESC,
                 coalesce(workloads, 0) DESC, source
    ) AS pick
    FROM perf
) AS b
WHERE pick = 1;
