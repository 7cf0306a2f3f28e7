-- Rental prices that are zero or negative: the loader drops such offers (validate_prices), so any
-- here came in some other way and would rank a card as free.
SELECT (SELECT count(*) FROM rental_offers
        WHERE usd_per_hour <= 0 OR usd_per_gpu_hour <= 0 OR spot_usd_per_hour <= 0 OR spot_usd_per_gpu_hour <= 0)
     + (SELECT count(*) FROM rental_prices_daily
        WHERE cheapest_usd_per_gpu_hour <= 0 OR median_usd_per_gpu_hour <= 0 OR spot_usd_per_gpu_hour <= 0);
