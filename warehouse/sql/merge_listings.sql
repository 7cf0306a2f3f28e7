-- The batch's listings the warehouse knew before it (touched_listings) merged into their stored rows.
-- Re-seeing a listing moves last_seen and status; a sold price, once recorded, never changes; what
-- the page no longer states keeps what an earlier sighting stated. Every column this statement does
-- not set takes the newest observation (the match among them, so a better matcher re-matches
-- history): warehouse/record_tables.py appends those from the table's columns, so a field new on
-- the record is merged with no edit here.
MERGE INTO listings AS l
USING (SELECT * FROM incoming_listings SEMI JOIN touched_listings USING (source, listing_id)) AS i
ON l.source = i.source AND l.listing_id = i.listing_id
WHEN MATCHED THEN UPDATE SET
    title           = CASE WHEN l.sold THEN l.title ELSE i.title END,
    subtitle        = coalesce(i.subtitle, l.subtitle),
    price           = CASE WHEN l.sold THEN l.price ELSE i.price END,
    shipping        = CASE WHEN l.sold THEN l.shipping ELSE i.shipping END,
    currency        = CASE WHEN l.sold THEN l.currency ELSE i.currency END,
    total_usd       = CASE WHEN l.sold THEN l.total_usd ELSE i.total_usd END,
    fx_source       = CASE WHEN l.sold THEN l.fx_source ELSE i.fx_source END,
    sold            = l.sold OR i.sold,
    sold_at         = coalesce(l.sold_at, i.sold_at),
    first_seen      = least(l.first_seen, i.first_seen),
    last_seen       = greatest(l.last_seen, i.last_seen),
    status          = CASE WHEN l.sold OR i.sold THEN 'sold' ELSE i.status END,
    url             = coalesce(i.url, l.url),
    marketplace     = coalesce(i.marketplace, l.marketplace),
    extras          = coalesce(CAST(i.extras AS JSON), l.extras)
