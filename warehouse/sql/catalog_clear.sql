-- The catalog (gpus) and its spec conflicts are derived from gpu_specs, so a rebuild replaces
-- them whole; load.replace_catalog then inserts the new rows in the same transaction.
DELETE FROM gpus;
DELETE FROM spec_conflicts;
