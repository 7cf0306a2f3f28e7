-- Which listings of the batch the warehouse knew before it: upsert_listings merges those and
-- inserts the rest, and refresh_price_observations rewrites their observations.
CREATE OR REPLACE TEMP TABLE touched_listings AS
SELECT source, listing_id FROM incoming_listings SEMI JOIN listings USING (source, listing_id);
