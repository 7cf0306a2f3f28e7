-- The version of each (model, source) in force now.
SELECT model, source, fetched_at, spec FROM gpu_specs WHERE valid_to IS NULL ORDER BY model, source;
