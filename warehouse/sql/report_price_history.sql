-- The report's price history chart. Each price on the date of its newest observation (price_as_of),
-- not on the ranking day that used it: a stale asking price of 2024 ranked every day since is one
-- point, in 2024. Where a price was recomputed on later days, the newest computation stands. A
-- published index is its own kind, on the first day of its month.
SELECT price_as_of AS as_of, model, price_usd, price_kind, price_n FROM prices_daily
WHERE price_kind IN ('sold', 'asking', 'launch')
QUALIFY row_number() OVER (PARTITION BY model, price_kind, price_as_of ORDER BY as_of DESC) = 1
UNION ALL
SELECT as_of, model, price_usd, price_kind, price_n FROM price_history WHERE price_kind = 'index'
ORDER BY model, as_of, price_kind;
