-- LLM inference speed (llama.cpp tokens/s), kept apart from training figures: `perf` holds relative
-- training speed and drives the ranking; this table is read only by `gpuvalue perf --inference` and
-- never joins the ranking. Figures are absolute tokens/s of the whole setup: with gpu_count > 1, one
-- model split over that many cards (not a sum of cards).
CREATE TABLE IF NOT EXISTS perf_inference (
    model        VARCHAR NOT NULL,             -- catalog model
    source       VARCHAR NOT NULL,             -- e.g. llamacpp-xiongjiedai-2024
    workload     VARCHAR NOT NULL,             -- language model and weight format, e.g. llama3-8b-q4_k_m
    phase        VARCHAR NOT NULL,             -- text-generation (bandwidth-bound) | prompt-processing (compute-bound)
    gpu_count    INTEGER NOT NULL,
    tokens_per_s DOUBLE NOT NULL,
    as_of        DATE,                         -- when the source's figures were published
    loaded_at    TIMESTAMP NOT NULL,
    PRIMARY KEY (model, source, workload, phase, gpu_count)
);
