-- Schema version 20: every figure carries its 80 % interval, and a card's shown figure weighs all its
-- evidence (docs/performance.md, "Precision-weighted figures").
--
-- perf_interval: perf_low / perf_high bound a figure's interval on relative_perf's scale, one row per
-- perf row that has one (none for a local measurement, the measured-only combination, or a row loaded
-- before this version until the next run's estimate stage). Kept apart from perf, whose columns
-- writers list by position; perf_with_interval joins them. The ranking keeps the bounds beside
-- relative_perf, rescaled to the reference card as relative_perf is.
CREATE TABLE perf_interval (
    model     VARCHAR NOT NULL,
    precision VARCHAR NOT NULL,
    source    VARCHAR NOT NULL,
    perf_low  DOUBLE NOT NULL,
    perf_high DOUBLE NOT NULL,
    PRIMARY KEY (model, precision, source)
);

CREATE VIEW perf_with_interval AS
SELECT p.*, i.perf_low, i.perf_high
FROM perf AS p
LEFT JOIN perf_interval AS i USING (model, precision, source);

ALTER TABLE ranking_daily ADD COLUMN perf_low DOUBLE;
ALTER TABLE ranking_daily ADD COLUMN perf_high DOUBLE;

-- Which figure counts for each model and precision: among measured figures a local measurement,
-- then the weighted figure (every source and the held-out estimate, each by its reliability), then
-- the measured-only combination (what the estimate is fitted on), then the most workloads; with its
-- interval. The interval is looked up per row rather than joined before the window: DuckDB then
-- answers perf_relative.sql's correlated name filter wrongly (tests/warehouse/test_name_queries.py),
-- and a backup's import would need perf_with_interval before this view.
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

-- Views over ranking_daily.* keep the columns they were created with: created again, they show the new ones.
CREATE OR REPLACE VIEW ranking_latest AS
    SELECT * FROM ranking_daily WHERE as_of = (SELECT max(as_of) FROM ranking_daily);

CREATE OR REPLACE VIEW ranking_labelled AS
SELECT r.*, s.label AS price_source_label
FROM ranking_daily AS r
LEFT JOIN sources AS s ON s.name = r.price_source;
