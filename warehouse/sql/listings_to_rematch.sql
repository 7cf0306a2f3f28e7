SELECT source, listing_id, title, subtitle, condition, model FROM listings;
