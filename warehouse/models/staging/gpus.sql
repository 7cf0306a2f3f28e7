-- The catalog: one row per card, every spec source's newest specs merged by each source's declared
-- precedence (disagreements in spec_conflicts). Every table a user may query is documented in
-- docs/warehouse.md.
--
-- framework_support: 'current' (a default or stable wheel of the newest PyTorch release runs the
-- card), 'legacy' (only the legacy CUDA 12.6 wheels do), 'none', or NULL (the catalog cannot tell);
-- see models/support_tables.py. framework_supported is derived from it (current -> true).
CREATE TABLE IF NOT EXISTS gpus (
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
    updated_at          TIMESTAMP,
    framework_support   VARCHAR                -- current|legacy|none, NULL when unknown
);
