-- Schema version 20: every figure carries its 80 % interval, and a card's shown figure weighs all its
-- evidence (docs/performance.md, "Precision-weighted figures").
--
-- perf_low / perf_high bound the interval on relative_perf's scale (NULL where a figure has none: a
-- local measurement, a row loaded before this version until the next run's estimate stage). The
-- ranking keeps them beside relative_perf, rescaled to the reference card as relative_perf is.
ALTER TABLE perf ADD COLUMN perf_low DOUBLE;
ALTER TABLE perf ADD COLUMN perf_high DOUBLE;
ALTER TABLE ranking_daily ADD COLUMN perf_low DOUBLE;
ALTER TABLE ranking_daily ADD COLUMN perf_high DOUBLE;

-- Which figure counts for each model and precision: among measured figures a local measurement,
-- then the weighted figure (every source and the held-out estimate, each by its reliability), then
-- the measured-only combination (what the estimate is fitted on), then the most workloads.
CREATE OR REPLACE VIEW perf_best AS
SELECT * EXCLUDE (pick) FROM (
    SELECT *, row_number() OVER (
        PARTITION BY model, precision
        ORDER BY measured DESC, (source = 'local') DESC, (source = 'weighted') DESC, (source = 'combined') DESC,
                 coalesce(workloads, 0) DESC, source
    ) AS pick
    FROM perf
) WHERE pick = 1;

-- Views over ranking_daily.* keep the columns they were created with: created again, they show the new ones.
CREATE OR REPLACE VIEW ranking_latest AS
    SELECT * FROM ranking_daily WHERE as_of = (SELECT max(as_of) FROM ranking_daily);

CREATE OR REPLACE VIEW ranking_labelled AS
SELECT r.*, s.label AS price_source_label
FROM ranking_daily AS r
LEFT JOIN sources AS s ON s.name = r.price_source;
