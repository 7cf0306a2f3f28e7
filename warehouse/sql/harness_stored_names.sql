-- The harnesses with stored figures: their perf, perf_workload and perf_scaling rows are derived,
-- and the combining replaces them (with nothing, for a harness whose figures are gone).
SELECT DISTINCT harness FROM harness_figures;
