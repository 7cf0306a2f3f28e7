-- The rental ranking of the newest rental date, from every offer: rent_ranked with no terms (its
-- rule and columns are described there), read from the stored rental_prices_daily.
CREATE OR REPLACE VIEW rent_ranking_latest AS
SELECT * FROM rent_ranked(NULL, NULL, false, CAST(NULL AS INTEGER));
