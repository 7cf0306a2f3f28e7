-- Used-market prices outside a single GPU's plausible price (models/plausible_price.py: MIN_PRICE_USD 1,
-- MAX_PRICE_USD 100,000): a load holds such a listing out, so any here came in some other way (a
-- wrong exchange rate, rows written by hand) and would move a card's median.
SELECT (SELECT count(*) FROM price_observations WHERE NOT (usd BETWEEN 1 AND 100000) OR isnan(usd))
     + (SELECT count(*) FROM prices_daily WHERE NOT (price_usd BETWEEN 1 AND 100000) OR isnan(price_usd));
