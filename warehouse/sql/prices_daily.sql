-- Robust used-market price per model for one as_of date ($as_of, $window_days, $min_count).
--
-- Observations: sold listings (by sale date) and fixed-price asking snapshots (by the day seen),
-- of one used, refurbished or open-box card each, matched to a model, with a USD total
-- (item + shipping). Auctions' current bids are never prices; an auction counts once sold.
-- A listing seen on many days counts once per window, at its newest asking price there.
-- Each model's window is the trailing $window_days ending on $as_of when it has observations
-- there, otherwise ending on its newest observation: such a price is kept but flagged stale by
-- the ranking, never presented as today's. Outliers: on log price, points farther than
-- 3 x 1.4826 x MAD (at least log 1.5) from the window's median are dropped.
-- Price: median of sold listings when at least $min_count remain, else the lower quartile of
-- asking prices (flagged asking), else no price.
DELETE FROM prices_daily WHERE as_of = $as_of;

INSERT INTO prices_daily BY NAME
WITH obs AS (
    SELECT source, listing_id, model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date, total_usd AS usd
    FROM listings
    WHERE sold AND model IS NOT NULL AND total_usd > 0 AND coalesce(quantity, 1) = 1
      AND condition_class IN ('used', 'refurbished', 'open_box') AND sold_at IS NOT NULL
      AND sold_at < CAST($as_of AS DATE) + INTERVAL 1 DAY
    UNION ALL
    SELECT s.source, s.listing_id, l.model, 'asking' AS kind, s.seen_date AS obs_date, s.total_usd AS usd
    FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
    WHERE NOT l.sold AND l.model IS NOT NULL AND s.total_usd > 0 AND coalesce(l.quantity, 1) = 1
      AND l.condition_class IN ('used', 'refurbished', 'open_box')
      AND coalesce(l.buying_option, '') NOT LIKE '%AUCTION%' AND s.seen_date <= $as_of
),
anchors AS (
    SELECT model, kind,
           CASE WHEN max(obs_date) > CAST($as_of AS DATE) - $window_days THEN CAST($as_of AS DATE)
                ELSE max(obs_date) END AS anchor
    FROM obs GROUP BY ALL
),
windowed AS (
    SELECT o.source, o.listing_id, o.model, o.kind, o.obs_date, o.usd, ln(o.usd) AS lp
    FROM obs AS o JOIN anchors AS a USING (model, kind)
    WHERE o.obs_date <= a.anchor AND o.obs_date > a.anchor - $window_days
),
-- A sold listing is one observation; only asking snapshots of one listing can repeat in a window.
in_window AS (
    SELECT * FROM windowed WHERE kind = 'sold'
    UNION ALL
    SELECT * FROM windowed WHERE kind = 'asking'
    QUALIFY row_number() OVER (PARTITION BY model, kind, source, listing_id ORDER BY obs_date DESC) = 1
),
centre AS (
    SELECT model, kind, median(lp) AS med FROM in_window GROUP BY ALL
),
spread AS (
    SELECT w.model, w.kind, c.med, greatest(3 * 1.4826 * median(abs(w.lp - c.med)), ln(1.5)) AS tol
    FROM in_window AS w JOIN centre AS c USING (model, kind) GROUP BY ALL
),
kept AS (
    SELECT w.* FROM in_window AS w JOIN spread AS s USING (model, kind) WHERE abs(w.lp - s.med) <= s.tol
),
stats AS (
    SELECT model, kind, count(*) AS n, median(usd) AS med_usd,
           quantile_cont(usd, 0.25) AS q1, quantile_cont(usd, 0.75) AS q3,
           max(obs_date) AS price_as_of
    FROM kept GROUP BY ALL HAVING count(*) >= $min_count
),
chosen AS (
    SELECT *, row_number() OVER (
        PARTITION BY model
        ORDER BY (price_as_of > CAST($as_of AS DATE) - $window_days) DESC, (kind = 'sold') DESC, price_as_of DESC
    ) AS pick
    FROM stats
)
SELECT CAST($as_of AS DATE) AS as_of, model,
       round(CASE WHEN kind = 'sold' THEN med_usd ELSE q1 END, 2) AS price_usd,
       kind AS price_kind, n AS price_n, round(q1, 2) AS price_q1, round(q3, 2) AS price_q3,
       price_as_of, $window_days AS window_days,
       CASE WHEN kind = 'sold' THEN 'median of sold, MAD outlier rule'
            ELSE 'lower quartile of fixed-price asking, MAD outlier rule' END AS method
FROM chosen WHERE pick = 1;
