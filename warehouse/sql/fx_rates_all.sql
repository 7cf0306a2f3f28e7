-- Every stored daily rate ($currency NULL: every currency), for the conversion by day (warehouse/fx.py).
SELECT rate_date, currency, usd_per_unit, source
FROM fx_rates
WHERE $currency IS NULL OR currency = $currency
ORDER BY currency, rate_date;
