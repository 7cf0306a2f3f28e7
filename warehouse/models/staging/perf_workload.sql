-- The per-workload throughput ratios behind each measured perf figure. A figure is the geometric
-- mean of these; the spec model fits them one workload at a time ("roofline v3 per-workload",
-- docs/performance.md), because workloads differ in how much they depend on compute and on memory
-- bandwidth.
CREATE TABLE IF NOT EXISTS perf_workload (
    model      VARCHAR NOT NULL,
    precision  VARCHAR NOT NULL,
    source     VARCHAR NOT NULL,
    workload   VARCHAR NOT NULL,
    ratio      DOUBLE NOT NULL,                -- card / reference on this workload, chain scale included
    PRIMARY KEY (model, precision, source, workload)
);
