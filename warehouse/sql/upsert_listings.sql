-- incoming_listings: one row per (source, listing_id), with the columns of listings
-- (first_seen = last_seen = this observation); touched_listings: the keys of incoming_listings
-- already in listings, merged into it before this runs (merge_listings.sql). Listings not seen
-- before are inserted as they come: measured, a MERGE of new rows costs half as much again as the
-- insert. Each listing's price of the day goes to listing_snapshots once.
INSERT INTO listings BY NAME
SELECT * FROM incoming_listings ANTI JOIN touched_listings USING (source, listing_id);

INSERT INTO listing_snapshots BY NAME
SELECT i.source, i.listing_id, CAST(i.last_seen AS DATE) AS seen_date, i.price, i.shipping, i.currency, i.total_usd
FROM incoming_listings AS i
ANTI JOIN listing_snapshots AS s
    ON s.source = i.source AND s.listing_id = i.listing_id AND s.seen_date = CAST(i.last_seen AS DATE);
