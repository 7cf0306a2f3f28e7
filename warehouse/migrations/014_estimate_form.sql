-- Schema version 14: the form the spec estimate chose, beside its cross-validated error.
--
-- Which form (tensor rate, memory term, family offsets) fits best is chosen by leave-one-card-out
-- over every measured card, and depends on exactly the inputs the digest covers, like the error.
-- Kept with it, a fit on the same inputs skips that choice (most of the estimate stage once the
-- error is known). NULL on rows written before; such a row's fit chooses again and fills it in.
ALTER TABLE perf_estimate_cv ADD COLUMN form VARCHAR;
