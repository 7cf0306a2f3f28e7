-- The listings one source holds: `gpuvalue import listings` counts them before and after, so it says how
-- many rows of a file were new and how many it already held (or repeated within itself).
SELECT count(*) FROM listings WHERE source = $source;
