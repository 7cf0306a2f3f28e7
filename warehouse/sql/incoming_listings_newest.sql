-- A batch that repeats a listing: its newest observation (a sale outranks a sighting the same
-- moment) stands for it, so that the upsert sees one row per key.
CREATE OR REPLACE TEMP TABLE incoming_listings AS
SELECT * FROM incoming_raw
QUALIFY row_number() OVER (PARTITION BY source, listing_id ORDER BY last_seen DESC, sold DESC) = 1;
