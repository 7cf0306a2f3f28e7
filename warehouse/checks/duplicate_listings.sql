-- Each (source, listing_id) is one listing.
SELECT count(*) FROM (SELECT source, listing_id FROM listings GROUP BY ALL HAVING count(*) > 1);
