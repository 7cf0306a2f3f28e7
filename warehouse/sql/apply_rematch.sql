-- `rematched` is an Arrow table registered by the caller: (source, listing_id, model, match_reason).
UPDATE listings AS l SET model = r.model, match_reason = r.match_reason
FROM rematched AS r
WHERE l.source = r.source AND l.listing_id = r.listing_id;
