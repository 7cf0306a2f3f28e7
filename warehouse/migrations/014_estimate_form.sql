-- Schema version 14: the form the spec estimate chose, beside its cross-validated error
-- (ops/perf_estimate_cv.sql). NULL on rows written before; such a row's fit chooses again and fills
-- it in.
ALTER TABLE perf_estimate_cv ADD COLUMN IF NOT EXISTS form VARCHAR;
