-- Schema version 26: the nested cross-validation's error per kind of card (GeForce, professional,
-- datacenter, AMD) beside its overall error (ops/perf_estimate_cv.sql), the figure every estimate's
-- method names. NULL on rows written before; such a row's fit cross-validates again and fills it in.
ALTER TABLE perf_estimate_cv ADD COLUMN IF NOT EXISTS group_errors VARCHAR;
