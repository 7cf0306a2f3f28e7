-- The observations a rebuild kept, reported by `gpuvalue rematch` and reparse.
SELECT count(*) FROM price_observations;
