-- Where an index and the pipeline's own prices cover the same model and month: the index's figure, the
-- own median and mean of the same kind, and their relative difference (own median / index figure - 1;
-- the median, because a few junk prices the index's editors would have removed move a mean). An index
-- of sold cards is compared with the own sold prices; an index of asking prices (a monthly report's
-- best deal, prices_averaged set) with the own asking prices, so a buyer sees where sources disagree.
-- Own prices are the observations the ranking's medians are made of (price_observations).
CREATE OR REPLACE VIEW price_index_vs_own AS
WITH own AS (
    SELECT model, kind, CAST(date_trunc('month', obs_date) AS DATE) AS month, count(*) AS own_n,
           median(usd) AS own_median_usd, avg(usd) AS own_avg_usd
    FROM price_observations
    WHERE kind IN ('sold', 'asking')
    GROUP BY ALL
)
SELECT i.source, i.gpu_name, i.model, i.month, i.avg_sold_usd AS index_avg_usd, i.quantity_sold AS index_quantity,
       o.own_n, round(o.own_median_usd, 2) AS own_median_usd, round(o.own_avg_usd, 2) AS own_avg_usd,
       o.own_median_usd / i.avg_sold_usd - 1 AS rel_diff, o.kind AS own_kind
FROM price_index_monthly AS i
JOIN own AS o ON o.model = i.model AND o.month = i.month
             AND o.kind = CASE WHEN i.prices_averaged IS NULL THEN 'sold' ELSE 'asking' END;
