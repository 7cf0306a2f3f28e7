DELETE FROM listing_snapshots WHERE source = $source;
DELETE FROM listings WHERE source = $source;
