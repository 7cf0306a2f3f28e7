-- Used-market prices of zero or below: the price rule keeps only prices above zero, so any here came in
-- some other way and would make a card look free.
SELECT (SELECT count(*) FROM prices_daily WHERE NOT (price_usd > 0))
     + (SELECT count(*) FROM price_observations WHERE NOT (usd > 0));
