-- incoming_inference: one source's inference figures as Arrow, one per (model, workload, phase,
-- gpu_count). They go to perf_inference only, never to perf, so they cannot reach the ranking.
INSERT INTO perf_inference BY NAME
SELECT model, source, workload, phase, gpu_count, tokens_per_s, as_of, loaded_at FROM incoming_inference;
