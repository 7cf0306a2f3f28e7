-- Used-market prices outside their card's plausible price (models/plausible_price.py, card_price_range:
-- LAUNCH_LOW_SHARE 0.02, or PRO_LAUNCH_LOW_SHARE 0.005 for PRO_SEGMENTS, to LAUNCH_HIGH_MULTIPLE 5 times a
-- launch price between MIN_PRICE_USD 1 and MAX_PRICE_USD 100000, else MEMORY_BOUNDS by the card's memory,
-- else 1 to 100000): a load holds such a
-- listing out, so any here came in some other way (a wrong exchange rate, a rematch, rows written by
-- hand) and would move a card's median.
WITH card_range AS (
    SELECT model,
           CASE WHEN launch_price_usd BETWEEN 1 AND 100000 AND segment IN ('datacenter', 'workstation')
                    THEN greatest(1, 0.005 * launch_price_usd)
                WHEN launch_price_usd BETWEEN 1 AND 100000 THEN greatest(1, 0.02 * launch_price_usd)
                WHEN memory_gb > 0 AND memory_gb < 8 THEN 1
                WHEN memory_gb > 0 AND memory_gb < 12 THEN 5
                WHEN memory_gb > 0 AND memory_gb < 16.5 THEN 10
                WHEN memory_gb > 0 AND memory_gb < 24.5 THEN 15
                WHEN memory_gb > 0 AND NOT isinf(memory_gb) AND NOT isnan(memory_gb) THEN 20
                ELSE 1 END AS low,
           CASE WHEN launch_price_usd BETWEEN 1 AND 100000 THEN least(100000, 5 * launch_price_usd)
                WHEN memory_gb > 0 AND memory_gb < 8 THEN 5000
                WHEN memory_gb > 0 AND memory_gb < 12 THEN 8000
                WHEN memory_gb > 0 AND memory_gb < 16.5 THEN 15000
                WHEN memory_gb > 0 AND memory_gb < 24.5 THEN 25000
                ELSE 100000 END AS high
    FROM gpus
),
priced AS (
    SELECT model, usd FROM price_observations
    UNION ALL
    SELECT model, price_usd FROM prices_daily
)
SELECT count(*)
FROM priced LEFT JOIN card_range USING (model)
WHERE isnan(usd) OR NOT (usd BETWEEN coalesce(low, 1) AND coalesce(high, 100000));
