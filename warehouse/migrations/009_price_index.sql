-- Schema version 9: published used-market price indexes (monthly average sold prices per card),
-- kept apart from the pipeline's own observations.
--
-- An index is somebody else's average over a month, so it never enters price_observations or
-- prices_daily (the own sold and asking medians the ranking uses). It serves three readers:
-- price_index_vs_own checks the own sold prices against it where both cover a model's month,
-- price_index_latest will price a card that has no own observation, and price_history shows it
-- as its own price kind, 'index', dated on the first day of the month it is for.
CREATE TABLE price_index_monthly (
    source        VARCHAR NOT NULL,
    gpu_name      VARCHAR NOT NULL,            -- as published
    model         VARCHAR,                     -- catalog model, NULL when the name is not exactly one card
    match_reason  VARCHAR NOT NULL,
    month         DATE NOT NULL,               -- first day of the month the prices are for
    avg_sold_usd  DOUBLE NOT NULL,
    quantity_sold INTEGER,                     -- NULL when the index gives no count
    published     DATE NOT NULL,               -- first day of the month of the article it was read from
    loaded_at     TIMESTAMP NOT NULL,
    PRIMARY KEY (source, gpu_name, month)
);

-- Where an index and the pipeline's own sold prices cover the same model and month: the index's
-- average, the own median and mean, and their relative difference (own median / index average - 1;
-- the median, because a few junk sales the index's editors would have removed move a mean).
-- Own sold prices are the sold observations the ranking's medians are made of: sold listings of one
-- used, refurbished or open-box card matched to the model, by sale date, USD total with shipping.
CREATE VIEW price_index_vs_own AS
WITH own AS (
    SELECT model, CAST(date_trunc('month', obs_date) AS DATE) AS month, count(*) AS own_n,
           median(usd) AS own_median_usd, avg(usd) AS own_avg_usd
    FROM price_observations
    WHERE kind = 'sold'
    GROUP BY ALL
)
SELECT i.source, i.gpu_name, i.model, i.month, i.avg_sold_usd AS index_avg_usd, i.quantity_sold AS index_quantity,
       o.own_n, round(o.own_median_usd, 2) AS own_median_usd, round(o.own_avg_usd, 2) AS own_avg_usd,
       o.own_median_usd / i.avg_sold_usd - 1 AS rel_diff
FROM price_index_monthly AS i
JOIN own AS o ON o.model = i.model AND o.month = i.month;

-- Each model's newest index month: what prices a card without any own observation (kind 'index',
-- with its month and quantity). Several rows for one model and month (two sources, two names):
-- the one with the most sales, then by source and name, so the choice is deterministic.
CREATE VIEW price_index_latest AS
SELECT model, source, gpu_name, month, avg_sold_usd, quantity_sold, published
FROM price_index_monthly
WHERE model IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY model ORDER BY month DESC, quantity_sold DESC NULLS LAST, source, gpu_name
) = 1;

-- Price history gains the index as its own kind: one row per model and month it covers (chosen as
-- in price_index_latest), price_n its quantity sold. Readers of the own history filter the kinds
-- they mean; the index is never part of an own median.
CREATE OR REPLACE VIEW price_history AS
SELECT as_of, model, price_usd, price_kind, price_n FROM prices_daily
UNION ALL
SELECT month AS as_of, model, avg_sold_usd AS price_usd, 'index' AS price_kind, quantity_sold AS price_n
FROM (
    SELECT * FROM price_index_monthly
    WHERE model IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY model, month ORDER BY quantity_sold DESC NULLS LAST, source, gpu_name) = 1
);
