-- The batch's listings the warehouse knew before it, each merged with its stored row, as the row
-- it becomes (warehouse/load.py merges these into listings on the record's key). Re-seeing a
-- listing moves last_seen and status; a sold price, once recorded, never changes; what the page
-- no longer states keeps what an earlier sighting stated; the match is refreshed so a better
-- matcher can re-match history. Every other column, a new field's among them, takes the newest
-- observation.
CREATE OR REPLACE TEMP TABLE merged_listings AS
SELECT i.* REPLACE (
    CASE WHEN l.sold THEN l.title ELSE i.title END AS title,
    coalesce(i.subtitle, l.subtitle) AS subtitle,
    CASE WHEN l.sold THEN l.price ELSE i.price END AS price,
    CASE WHEN l.sold THEN l.shipping ELSE i.shipping END AS shipping,
    CASE WHEN l.sold THEN l.currency ELSE i.currency END AS currency,
    CASE WHEN l.sold THEN l.total_usd ELSE i.total_usd END AS total_usd,
    CASE WHEN l.sold THEN l.fx_source ELSE i.fx_source END AS fx_source,
    l.sold OR i.sold AS sold,
    coalesce(l.sold_at, i.sold_at) AS sold_at,
    least(l.first_seen, i.first_seen) AS first_seen,
    greatest(l.last_seen, i.last_seen) AS last_seen,
    CASE WHEN l.sold OR i.sold THEN 'sold' ELSE i.status END AS status,
    coalesce(i.url, l.url) AS url,
    coalesce(i.marketplace, l.marketplace) AS marketplace,
    coalesce(CAST(i.extras AS JSON), l.extras) AS extras
)
FROM incoming_listings AS i JOIN listings AS l ON l.source = i.source AND l.listing_id = i.listing_id;
