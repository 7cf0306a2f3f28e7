-- gpuvalue warehouse, schema version 1.
-- Every table a user may query is documented in the README ("Schema").

CREATE TABLE gpus (
    model               VARCHAR PRIMARY KEY,   -- canonical name, TechPowerUp naming
    vendor              VARCHAR,
    architecture        VARCHAR,
    generation          VARCHAR,
    chip                VARCHAR,
    segment             VARCHAR,               -- desktop|workstation|datacenter|mobile|integrated|other
    release_date        DATE,
    released            BOOLEAN,
    memory_gb           DOUBLE,
    memory_type         VARCHAR,
    memory_bus_bits     INTEGER,
    bandwidth_gb_s      DOUBLE,
    fp32_tflops         DOUBLE,
    fp16_tflops         DOUBLE,
    tensor_fp16_tflops  DOUBLE,
    tensor_cores        INTEGER,
    l2_cache_mb         DOUBLE,
    tdp_w               INTEGER,
    bus_interface       VARCHAR,
    form_factor         VARCHAR,
    slot_width          VARCHAR,
    launch_price_usd    DOUBLE,
    compute_capability  VARCHAR,
    framework_supported BOOLEAN,               -- current PyTorch CUDA / ROCm wheels run on it
    desktop_usable      BOOLEAN,               -- a desktop PCIe slot can take it
    tpu_url             VARCHAR,
    provenance          JSON,                  -- {field: {"source": ..., "fetched_at": ...}}
    updated_at          TIMESTAMP
);

-- What each source said, versioned: a changed value opens a new version (valid_from).
CREATE TABLE gpu_specs (
    model       VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    valid_from  TIMESTAMP NOT NULL,
    valid_to    TIMESTAMP,                     -- NULL while current
    fetched_at  TIMESTAMP NOT NULL,            -- last time the source said exactly this
    spec_hash   VARCHAR NOT NULL,
    spec        JSON NOT NULL,
    PRIMARY KEY (model, source, valid_from)
);

CREATE TABLE spec_conflicts (
    model        VARCHAR NOT NULL,
    field        VARCHAR NOT NULL,
    kept_source  VARCHAR NOT NULL,
    kept_value   VARCHAR,
    other_source VARCHAR NOT NULL,
    other_value  VARCHAR,
    detected_at  TIMESTAMP NOT NULL,
    PRIMARY KEY (model, field, other_source)
);

CREATE TABLE listings (
    source        VARCHAR NOT NULL,
    listing_id    VARCHAR NOT NULL,
    title         VARCHAR NOT NULL,
    subtitle      VARCHAR,
    price         DOUBLE,                      -- in currency
    shipping      DOUBLE,                      -- in currency; NULL unknown, 0 free
    currency      VARCHAR,
    total_usd     DOUBLE,                      -- (price + shipping) converted, NULL when not convertible
    fx_source     VARCHAR,
    condition     VARCHAR,
    condition_class VARCHAR,                   -- used|refurbished|open_box|new|parts|unknown
    buying_option VARCHAR,
    bid_count     INTEGER,
    quantity      INTEGER,
    sold          BOOLEAN NOT NULL,
    sold_at       TIMESTAMP,
    first_seen    TIMESTAMP NOT NULL,
    last_seen     TIMESTAMP NOT NULL,
    status        VARCHAR NOT NULL,            -- active|sold|ended
    url           VARCHAR,
    marketplace   VARCHAR,
    model         VARCHAR,                     -- matched canonical model, NULL when not one card
    match_reason  VARCHAR NOT NULL,
    PRIMARY KEY (source, listing_id)
);

-- One row per listing per day it was seen: asking prices over time.
CREATE TABLE listing_snapshots (
    source      VARCHAR NOT NULL,
    listing_id  VARCHAR NOT NULL,
    seen_date   DATE NOT NULL,
    price       DOUBLE,
    shipping    DOUBLE,
    currency    VARCHAR,
    total_usd   DOUBLE,
    PRIMARY KEY (source, listing_id, seen_date)
);

CREATE TABLE fx_rates (
    rate_date    DATE NOT NULL,
    currency     VARCHAR NOT NULL,
    usd_per_unit DOUBLE NOT NULL,
    source       VARCHAR NOT NULL,
    PRIMARY KEY (rate_date, currency)
);

CREATE TABLE perf (
    model         VARCHAR NOT NULL,
    precision     VARCHAR NOT NULL,            -- fp16 (mixed) | fp32 (tf32 on Ampere+)
    source        VARCHAR NOT NULL,
    relative_perf DOUBLE NOT NULL,             -- 1.0 == reference card
    method        VARCHAR NOT NULL,
    reference     VARCHAR NOT NULL,
    measured      BOOLEAN NOT NULL,
    workloads     INTEGER,
    uncertainty   DOUBLE,
    as_of         DATE,
    loaded_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (model, precision, source)
);

-- Multi-GPU whole-system throughput, kept for scaling efficiency.
CREATE TABLE perf_scaling (
    model       VARCHAR NOT NULL,
    precision   VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    num_gpu     INTEGER NOT NULL,
    efficiency  DOUBLE NOT NULL,               -- system throughput / (num_gpu x one card)
    PRIMARY KEY (model, precision, source, num_gpu)
);

CREATE TABLE prices_daily (
    as_of        DATE NOT NULL,
    model        VARCHAR NOT NULL,
    price_usd    DOUBLE NOT NULL,
    price_kind   VARCHAR NOT NULL,             -- sold|asking|launch
    price_n      INTEGER NOT NULL,
    price_q1     DOUBLE,
    price_q3     DOUBLE,
    price_as_of  DATE NOT NULL,                -- newest observation behind the price
    window_days  INTEGER NOT NULL,
    method       VARCHAR NOT NULL,
    PRIMARY KEY (as_of, model)
);

CREATE TABLE ranking_daily (
    as_of               DATE NOT NULL,
    rank                INTEGER NOT NULL,
    model               VARCHAR NOT NULL,
    vendor              VARCHAR,
    architecture        VARCHAR,
    segment             VARCHAR,
    memory_gb           DOUBLE,
    bandwidth_gb_s      DOUBLE,
    relative_perf       DOUBLE NOT NULL,
    perf_source         VARCHAR NOT NULL,
    perf_method         VARCHAR,
    perf_precision      VARCHAR NOT NULL,
    reference_gpu       VARCHAR NOT NULL,
    price_usd           DOUBLE NOT NULL,
    price_kind          VARCHAR NOT NULL,
    price_n             INTEGER NOT NULL,
    price_q1            DOUBLE,
    price_q3            DOUBLE,
    price_as_of         DATE NOT NULL,
    perf_per_dollar     DOUBLE NOT NULL,       -- relative_perf per 1000 USD
    framework_supported BOOLEAN,
    desktop_usable      BOOLEAN,
    stale               BOOLEAN NOT NULL,      -- price older than the price window
    tdp_w               INTEGER,
    PRIMARY KEY (as_of, model)
);

CREATE TABLE runs (
    run_id      VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    stage       VARCHAR NOT NULL,
    as_of       DATE NOT NULL,
    replay      BOOLEAN NOT NULL,
    started_at  TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status      VARCHAR NOT NULL,              -- ok|failed|skipped|not recorded|running
    rows        INTEGER,
    error       VARCHAR,
    PRIMARY KEY (run_id, source)
);

CREATE VIEW ranking_latest AS
    SELECT * FROM ranking_daily WHERE as_of = (SELECT max(as_of) FROM ranking_daily);

CREATE VIEW price_history AS
    SELECT as_of, model, price_usd, price_kind, price_n FROM prices_daily;

CREATE VIEW perf_per_dollar_history AS
    SELECT as_of, model, perf_per_dollar, rank FROM ranking_daily;
