-- Prices of new (sealed) cards, kept apart from the used-market price: the ranking prices used,
-- refurbished and open-box cards of one unit; new cards are another market. Per model, the listings
-- of the newest 30 days that have any, sold ones by sale date and fixed-price asking ones by the day
-- seen (each listing once, at its newest price), with count, median and quartiles of the USD total.
CREATE OR REPLACE VIEW new_card_prices AS
WITH obs AS (
    SELECT source, listing_id, model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date, total_usd AS usd
    FROM listings
    WHERE sold AND model IS NOT NULL AND total_usd > 0 AND coalesce(quantity, 1) = 1
      AND condition_class = 'new' AND sold_at IS NOT NULL
    UNION ALL
    SELECT s.source, s.listing_id, l.model, 'asking' AS kind, s.seen_date AS obs_date, s.total_usd AS usd
    FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
    WHERE NOT l.sold AND l.model IS NOT NULL AND s.total_usd > 0 AND coalesce(l.quantity, 1) = 1
      AND l.condition_class = 'new' AND coalesce(l.buying_option, '') NOT LIKE '%AUCTION%'
),
newest AS (SELECT model, kind, max(obs_date) AS last_date FROM obs GROUP BY ALL),
recent AS (
    SELECT o.* FROM obs AS o JOIN newest AS n USING (model, kind)
    WHERE o.obs_date > n.last_date - 30
    QUALIFY row_number() OVER (PARTITION BY o.model, o.kind, o.source, o.listing_id ORDER BY o.obs_date DESC) = 1
)
SELECT model, kind AS price_kind, count(*) AS price_n, round(median(usd), 2) AS price_usd,
       round(quantile_cont(usd, 0.25), 2) AS price_q1, round(quantile_cont(usd, 0.75), 2) AS price_q3,
       max(obs_date) AS price_as_of
FROM recent GROUP BY ALL;
