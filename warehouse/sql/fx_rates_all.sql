-- Every stored daily rate ($currency NULL: every currency), for the conversion by day (warehouse/fx.py),
-- each named as its source labels itself (sources.label: the words a converted price shows), else by
-- the source's name.
SELECT r.rate_date, r.currency, r.usd_per_unit, coalesce(s.label, r.source) AS source
FROM fx_rates AS r
LEFT JOIN sources AS s ON s.name = r.source
WHERE $currency IS NULL OR r.currency = $currency
ORDER BY r.currency, r.rate_date;
