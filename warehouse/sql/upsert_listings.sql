-- incoming_listings has the columns of listings (first_seen = last_seen = this observation).
-- Re-seeing a listing moves last_seen and status; a sold price, once recorded, never changes;
-- the match is refreshed so a better matcher can re-match history.
INSERT INTO listings BY NAME
SELECT * FROM incoming_listings
ON CONFLICT (source, listing_id) DO UPDATE SET
    title           = CASE WHEN listings.sold THEN listings.title ELSE excluded.title END,
    subtitle        = coalesce(excluded.subtitle, listings.subtitle),
    price           = CASE WHEN listings.sold THEN listings.price ELSE excluded.price END,
    shipping        = CASE WHEN listings.sold THEN listings.shipping ELSE excluded.shipping END,
    currency        = CASE WHEN listings.sold THEN listings.currency ELSE excluded.currency END,
    total_usd       = CASE WHEN listings.sold THEN listings.total_usd ELSE excluded.total_usd END,
    fx_source       = CASE WHEN listings.sold THEN listings.fx_source ELSE excluded.fx_source END,
    condition       = excluded.condition,
    condition_class = excluded.condition_class,
    buying_option   = excluded.buying_option,
    bid_count       = excluded.bid_count,
    quantity        = excluded.quantity,
    sold            = listings.sold OR excluded.sold,
    sold_at         = coalesce(listings.sold_at, excluded.sold_at),
    first_seen      = least(listings.first_seen, excluded.first_seen),
    last_seen       = greatest(listings.last_seen, excluded.last_seen),
    status          = CASE WHEN listings.sold OR excluded.sold THEN 'sold' ELSE excluded.status END,
    url             = coalesce(excluded.url, listings.url),
    marketplace     = coalesce(excluded.marketplace, listings.marketplace),
    model           = excluded.model,
    match_reason    = excluded.match_reason;

INSERT INTO listing_snapshots BY NAME
SELECT source, listing_id, CAST(last_seen AS DATE) AS seen_date, price, shipping, currency, total_usd
FROM incoming_listings
ON CONFLICT DO NOTHING;
