-- Schema version 3: which performance figure counts for each model and precision, in one place.
-- Measured beats estimated; a local measurement beats a published benchmark; more workloads beat
-- fewer; then by source name, so the choice is deterministic.
CREATE VIEW perf_best AS
SELECT * EXCLUDE (pick) FROM (
    SELECT *, row_number() OVER (
        PARTITION BY model, precision
        ORDER BY measured DESC, (source = 'local') DESC, coalesce(workloads, 0) DESC, source
    ) AS pick
    FROM perf
) WHERE pick = 1;
