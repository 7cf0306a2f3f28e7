-- incoming_perf: one benchmark source's figures as Arrow, one per (model, precision), stamped
-- with the load time (load.replace_perf, after perf_delete_source).
INSERT INTO perf BY NAME
SELECT model, precision, source, relative_perf, method, reference, measured, workloads, uncertainty, as_of, loaded_at
FROM incoming_perf;
