-- How many rows of a listing batch repeat a (source, listing_id) already in it: a page can show a
-- listing twice, and the load keeps only its newest observation when it does.
SELECT count(*) - count(DISTINCT (source, listing_id)) FROM incoming_raw;
