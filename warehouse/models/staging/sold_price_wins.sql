-- Which of a card's own prices is its price on day as_of: sold (true) or asking (false), given the date
-- of each kind's price (NULL: no price of that kind). The one choice warehouse/models/marts/prices_daily.sql and
-- sql/backfill_prices_resolve.sql make. A fresh price (newer than as_of - window_days) beats a stale
-- one of either kind, and of two fresh prices the sold one wins. Of two stale prices the newer wins,
-- unless they are within comparable_days of each other (GPUVALUE_PRICE_COMPARABLE_DAYS, as in
-- warehouse/models/marts/ranking_daily.sql), where the sold one still does: a sale of 2020 never beats an asking price of 2025,
-- a sale of last autumn beats this winter's asking price.
CREATE OR REPLACE MACRO sold_price_wins(sold_as_of, asking_as_of, as_of, window_days, comparable_days) AS
    CASE WHEN asking_as_of IS NULL THEN true
         WHEN sold_as_of IS NULL THEN false
         WHEN (sold_as_of > as_of - window_days) <> (asking_as_of > as_of - window_days)
             THEN sold_as_of > as_of - window_days
         WHEN sold_as_of > as_of - window_days THEN true
         ELSE sold_as_of >= asking_as_of - comparable_days
    END;
