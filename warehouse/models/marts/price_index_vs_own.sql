-- Where an index and the pipeline's own sold prices cover the same model and month: the index's
-- average, the own median and mean, and their relative difference (own median / index average - 1;
-- the median, because a few junk sales the index's editors would have removed move a mean). Own
-- sold prices are the sold observations the ranking's medians are made of (price_observations).
CREATE OR REPLACE VIEW price_index_vs_own AS
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
