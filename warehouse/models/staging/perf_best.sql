-- Which performance figure counts for each model and precision, in one place. Measured beats
-- estimated; among measured figures a local measurement, then the weighted figure (every source and
-- the held-out estimate, each by its reliability: docs/performance.md, "Precision-weighted figures"),
-- then the measured-only combination (what the estimate is fitted on), then more workloads beat fewer,
-- then by source name, so the choice is deterministic.
CREATE OR REPLACE VIEW perf_best AS
SELECT * EXCLUDE (pick) FROM (
    SELECT *, row_number() OVER (
        PARTITION BY model, precision
        ORDER BY measured DESC, (source = 'local') DESC, (source = 'weighted') DESC, (source = 'combined') DESC,
                 coalesce(workloads, 0) DESC, source
    ) AS pick
    FROM perf_with_interval
) WHERE pick = 1;
