-- This warehouse's cross-validated error for a fit on exactly these inputs (? = inputs digest): a
-- fit that finds one skips its nested cross-validation (about 11 s) and reuses the form it chose.
SELECT cv_median_abs_error, computed_at, form, group_errors FROM perf_estimate_cv WHERE inputs_digest = ?;
