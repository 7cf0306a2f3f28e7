-- Every figure the benchmark harnesses published, as published, with what it needs to be read
-- (harness, device as written, software, batch and whether the harness's default was assumed,
-- precision, metric), including the runs kept out of the ranking, each with its reason (laptop,
-- integrated, vGPU, not a GPU, a variant run, a device the catalog lacks). The ratios, per-harness
-- figures and the combined figure derived from them go to perf, perf_workload and perf_scaling
-- (docs/performance.md, "Combining benchmark harnesses"). Each harness's rows are replaced whole by
-- its newest fetch.
CREATE TABLE IF NOT EXISTS harness_figures (
    harness           VARCHAR NOT NULL,
    device            VARCHAR NOT NULL,        -- as published
    model             VARCHAR,                 -- catalog model, NULL when unsure
    excluded          VARCHAR,                 -- why it stays out of the ranking, NULL when it may enter it
    workload          VARCHAR NOT NULL,
    mode              VARCHAR NOT NULL,        -- train | inference
    precision         VARCHAR NOT NULL,        -- fp16 | fp32 | fp64, as the harness means them
    metric            VARCHAR NOT NULL,        -- ms_per_iter | samples_per_s | score | minutes_to_train
    value             DOUBLE NOT NULL,
    batch_size        INTEGER,                 -- per GPU
    batch_basis       VARCHAR NOT NULL,        -- stated | default (assumed) | per-device | unknown
    gpu_count         INTEGER NOT NULL,
    framework         VARCHAR NOT NULL,
    framework_version VARCHAR,
    cuda              VARCHAR,
    rocm              VARCHAR,
    cudnn             VARCHAR,
    run_date          DATE,
    series            VARCHAR,
    run               VARCHAR NOT NULL,
    baseline_run      VARCHAR,
    iterations        INTEGER,
    note              VARCHAR,
    loaded_at         TIMESTAMP NOT NULL
);
