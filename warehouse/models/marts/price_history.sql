-- Every price a card had: the own daily prices, and the published index as its own kind, one row per
-- model and month it covers (chosen as in price_index_latest), price_n its quantity sold. Readers of
-- the own history filter the kinds they mean; the index is never part of an own median.
CREATE OR REPLACE VIEW price_history AS
SELECT as_of, model, price_usd, price_kind, price_n FROM prices_daily
UNION ALL
SELECT month AS as_of, model, avg_sold_usd AS price_usd, 'index' AS price_kind, quantity_sold AS price_n
FROM (
    SELECT * FROM price_index_monthly
    WHERE model IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY model, month ORDER BY quantity_sold DESC NULLS LAST, source, gpu_name) = 1
);
