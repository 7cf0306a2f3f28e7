-- Every stored harness figure, as HarnessFigure's fields (run_date is its `date`), for the combining
-- that runs after all benchmark sources of a run are stored (harness.combine_and_store).
SELECT harness, device, model, excluded, workload, mode, precision, metric, value, batch_size, batch_basis, gpu_count,
       framework, framework_version, cuda, rocm, cudnn, run_date, series, run, baseline_run, iterations, note
FROM harness_figures
ORDER BY harness, run, workload;
