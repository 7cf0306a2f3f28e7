-- The matched listings of one source, and how many of them count toward used prices (the conditions
-- refresh_price_observations.sql takes) or have no condition the import could read: `gpuvalue import
-- listings` says so, as a sale without a condition never reaches a price.
SELECT count(*) AS matched,
       count(*) FILTER (WHERE condition_class IN ('used', 'refurbished', 'open_box')) AS counted,
       count(*) FILTER (WHERE condition_class = 'unknown') AS unknown
FROM listings
WHERE source = $source AND coalesce(model, '') <> '';
