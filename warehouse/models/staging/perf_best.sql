-- Which performance figure counts for each model and precision, in one place. Measured beats
-- estimated; a local measurement beats a published benchmark; among measured figures a card's
-- combined figure (several sources, docs/performance.md) comes next: it cannot rest on workload
-- counts alone, as a chained figure it does not average in may have more; then more workloads beat
-- fewer, then by source name, so the choice is deterministic.
CREATE OR REPLACE VIEW perf_best AS
SELECT * EXCLUDE (pick) FROM (
    SELECT *, row_number() OVER (
        PARTITION BY model, precision
        ORDER BY measured DESC, (source = 'local') DESC, (source = 'combined') DESC,
                 coalesce(workloads, 0) DESC, source
    ) AS pick
    FROM perf
) WHERE pick = 1;
