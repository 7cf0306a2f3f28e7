-- Every offer a rental source published, by the date of its data (as_of: a commit date or a capture
-- date), so a later capture adds rows and a re-load of a date replaces that date's rows of its
-- source. offer_key names the offer within its source, provider and date: the instance type and
-- region where the source gives them; where it gives no instance name (most of FSDL's rows), the GPU
-- name and count, numbered when one file lists that configuration twice.
CREATE TABLE IF NOT EXISTS rental_offers (
    source                 VARCHAR NOT NULL,
    provider               VARCHAR NOT NULL,   -- lower case: aws, lambda, runpod, ...
    offer_key              VARCHAR NOT NULL,
    instance_type          VARCHAR,            -- as published; NULL when the source gives none
    region                 VARCHAR,
    as_of                  DATE NOT NULL,      -- the date of the data, not of the load
    gpu_name               VARCHAR NOT NULL,   -- as published
    model                  VARCHAR,            -- catalog model; NULL when the name does not settle one
    match_reason           VARCHAR NOT NULL,
    gpu_count              INTEGER NOT NULL,
    usd_per_hour           DOUBLE,             -- whole instance, on demand
    usd_per_gpu_hour       DOUBLE,             -- one of its GPUs, on demand
    spot_usd_per_hour      DOUBLE,
    spot_usd_per_gpu_hour  DOUBLE,
    gpu_memory_gb          DOUBLE,
    vcpus                  DOUBLE,
    memory_gib             DOUBLE,             -- host memory
    loaded_at              TIMESTAMP NOT NULL,
    reliability            DOUBLE,             -- what a marketplace host states of itself (schema 21)
    verified               BOOLEAN,
    extras                 JSON,               -- what only this source states, by its module's names (schema 23)
    PRIMARY KEY (source, provider, offer_key, as_of)
);
