-- incoming_listings: one row per (source, listing_id), with the columns of listings
-- (first_seen = last_seen = this observation); touched_listings: the keys of incoming_listings
-- already in listings (worked out by the load, which needs them again for price_observations).
-- Re-seeing a listing moves last_seen and status; a sold price, once recorded, never changes;
-- the match is refreshed so a better matcher can re-match history. Listings not seen before are
-- inserted as they come: measured, a MERGE of new rows costs half as much again as the insert.
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
    condition       = i.condition,
    condition_class = i.condition_class,
    buying_option   = i.buying_option,
    bid_count       = i.bid_count,
    quantity        = i.quantity,
    sold            = l.sold OR i.sold,
    sold_at         = coalesce(l.sold_at, i.sold_at),
    first_seen      = least(l.first_seen, i.first_seen),
    last_seen       = greatest(l.last_seen, i.last_seen),
    status          = CASE WHEN l.sold OR i.sold THEN 'sold' ELSE i.status END,
    url             = coalesce(i.url, l.url),
    marketplace     = coalesce(i.marketplace, l.marketplace),
    model           = i.model,
    match_reason    = i.match_reason,
    extras          = coalesce(CAST(i.extras AS JSON), l.extras);

INSERT INTO listings BY NAME
SELECT * FROM incoming_listings ANTI JOIN touched_listings USING (source, listing_id);

INSERT INTO listing_snapshots BY NAME
SELECT i.source, i.listing_id, CAST(i.last_seen AS DATE) AS seen_date, i.price, i.shipping, i.currency, i.total_usd
FROM incoming_listings AS i
ANTI JOIN listing_snapshots AS s
    ON s.source = i.source AND s.listing_id = i.listing_id AND s.seen_date = CAST(i.last_seen AS DATE);
