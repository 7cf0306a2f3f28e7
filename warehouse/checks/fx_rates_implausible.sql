-- Exchange rates no currency has, or dated before the euro or in the future: loads refuse them
-- (models/fx.py: MIN_USD_PER_UNIT 1e-7, MAX_USD_PER_UNIT 100, EARLIEST_RATE_DAY 1999-01-04,
-- FUTURE_DAYS 1), so any here came in some other way and would convert a price by a wrong factor.
SELECT count(*) FROM fx_rates
WHERE NOT (usd_per_unit BETWEEN 1e-7 AND 100) OR isnan(usd_per_unit) OR isinf(usd_per_unit)
   OR rate_date < DATE '1999-01-04' OR rate_date > current_date + 1;
