-- A price index import is the new truth for its source: its previous rows go, including months
-- and names it no longer publishes.
DELETE FROM price_index_monthly WHERE source = ?;
