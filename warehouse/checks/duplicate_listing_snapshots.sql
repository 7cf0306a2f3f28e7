SELECT count(*) FROM (SELECT source, listing_id, seen_date FROM listing_snapshots GROUP BY ALL HAVING count(*) > 1);
