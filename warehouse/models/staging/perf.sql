-- Relative training speed per card, precision and source: measured figures (per benchmark source,
-- and 'combined' across harnesses) and the spec model's estimates (source 'estimate').
CREATE TABLE IF NOT EXISTS perf (
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
