-- Every stored error of a warehouse after a replay run, written as the errors shipped with gpuvalue
-- (models/data/perf_estimate_cv.json, each row with these keys in this order); `python -m
-- gpuvalue.warehouse.estimate_cv <database>` regenerates the file.
SELECT inputs_digest, precision, model_version, trained_cards, cv_median_abs_error, computed_at, form, group_errors
FROM perf_estimate_cv
ORDER BY precision, inputs_digest;
