-- Reparse rebuilds a listing source from its raw archive: its listings and their daily
-- snapshots go first (snapshots before the listings they belong to), and price_observations are
-- rebuilt once the source is loaded again.
DELETE FROM listing_snapshots WHERE source = $source;
DELETE FROM listings WHERE source = $source;
