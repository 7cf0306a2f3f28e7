-- incoming_source_rows: one source's multi-GPU scaling efficiencies as Arrow (load.replace_scaling).
INSERT OR REPLACE INTO perf_scaling BY NAME
SELECT model, precision, source, num_gpu, efficiency FROM incoming_source_rows;
