-- incoming_source_rows: one source's per-workload ratios as Arrow (load.replace_perf_workload).
INSERT OR REPLACE INTO perf_workload BY NAME
SELECT model, precision, source, workload, ratio FROM incoming_source_rows;
