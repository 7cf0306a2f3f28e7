-- How many model-days of rental prices the warehouse holds: the rental load reports it after its
-- rebuild, and the export writes the rental files (and the feed its rental item) only when it is not 0.
SELECT count(*) FROM rental_prices_daily;
