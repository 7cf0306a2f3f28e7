-- A load's daily rates, registered as incoming_fx_rates (warehouse/fx.py): a day and currency stored
-- again (the daily file and the 90-day file overlap) keeps one row, the newest load's.
INSERT OR REPLACE INTO fx_rates (rate_date, currency, usd_per_unit, source)
SELECT rate_date, currency, usd_per_unit, source FROM incoming_fx_rates;
