-- Rental prices for a model the catalog does not have: the cloud name matcher answered a name no
-- spec source knows, so the rental ranking could not say what the card is.
SELECT count(*) FROM (SELECT DISTINCT model FROM rental_prices_daily) AS r
WHERE NOT EXISTS (SELECT 1 FROM gpus AS g WHERE g.model = r.model);
