-- The listings of an import that another import already holds (the same sale, by its eBay item id, or the
-- same row of a file without links): `gpuvalue import listings` leaves them out, or one sale would count
-- twice in a median.
SELECT listing_id, min(source) AS source
FROM listings
WHERE source LIKE 'import:%' AND source <> $source AND listing_id IN (SELECT unnest($listing_ids))
GROUP BY listing_id;
