-- Each model's newest index month (the price a card without own observations gets), read by
-- price_index.price_index_latest; the view picks one row per model.
SELECT * FROM price_index_latest ORDER BY model;
