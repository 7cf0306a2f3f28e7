-- A card's own price from one counted window of its observations: the median of sold prices, else the
-- lower quartile of fixed-price asking prices (asking prices run above what cards sell for), to the
-- cent. The one rule warehouse/models/marts/prices_daily.sql and sql/backfill_prices_resolve.sql apply
-- to the window each chose; own_price_method says it in words.
CREATE OR REPLACE MACRO own_price_usd(kind, median_usd, q1_usd) AS
    round(CASE WHEN kind = 'sold' THEN median_usd ELSE q1_usd END, 2);
