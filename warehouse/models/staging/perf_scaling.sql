-- Multi-GPU whole-system throughput, kept for scaling efficiency.
CREATE TABLE IF NOT EXISTS perf_scaling (
    model       VARCHAR NOT NULL,
    precision   VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    num_gpu     INTEGER NOT NULL,
    efficiency  DOUBLE NOT NULL,               -- system throughput / (num_gpu x one card)
    PRIMARY KEY (model, precision, source, num_gpu)
);
