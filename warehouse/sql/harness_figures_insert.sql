-- A harness's figures, registered as incoming_harness from an Arrow batch built with harness._SCHEMA;
-- these columns are harness._COLUMNS, which the batch's rows are made of.
INSERT INTO harness_figures BY NAME
SELECT harness, device, model, excluded, workload, mode, precision, metric, value, batch_size, batch_basis, gpu_count,
       framework, framework_version, cuda, rocm, cudnn, run_date, series, run, baseline_run, iterations, note,
       loaded_at
FROM incoming_harness;
