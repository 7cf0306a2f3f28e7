-- perf_interval: perf_low / perf_high bound a figure's 80 % interval on relative_perf's scale, one row per
-- perf row that has one (none for a local measurement, the measured-only combination, or a row loaded
-- before schema 19 until the next run's estimate stage); docs/performance.md, "Precision-weighted
-- figures". Kept apart from perf, whose columns writers list by position; perf_with_interval joins them.
CREATE TABLE IF NOT EXISTS perf_interval (
    model     VARCHAR NOT NULL,
    precision VARCHAR NOT NULL,
    source    VARCHAR NOT NULL,
    perf_low  DOUBLE NOT NULL,
    perf_high DOUBLE NOT NULL,
    PRIMARY KEY (model, precision, source)
);
