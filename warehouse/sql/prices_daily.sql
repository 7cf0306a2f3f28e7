-- Robust used-market price per model for one as_of date ($as_of, $window_days, $min_count, $since).
--
-- Observations: price_observations (migration 005): sold listings by sale date and fixed-price
-- asking snapshots by the day seen, of one used, refurbished or open-box card each, matched to a
-- model, with a USD total (item + shipping). Auctions' current bids are never prices.
-- A listing seen on many days counts once per window, at its newest asking price there.
-- Each model's window is the trailing $window_days ending on $as_of when it has observations
-- there, otherwise ending on its newest observation: such a price is kept but flagged stale by
-- the ranking, never presented as today's. Outliers: on log price, points farther than
-- 3 x 1.4826 x MAD (at least log 1.5) from the window's median are dropped.
-- Price: median of sold listings when at least $min_count remain, else the lower quartile of
-- asking prices (flagged asking), else no price.
DELETE FROM prices_daily WHERE as_of = $as_of;

INSERT INTO prices_daily BY NAME
WITH anchors AS (
    SELECT model, kind,
           CASE WHEN max(obs_date) > CAST($as_of AS DATE) - $window_days THEN CAST($as_of AS DATE)
                ELSE max(obs_date) END AS anchor
    FROM price_observation_days WHERE obs_date <= $as_of GROUP BY ALL
),
-- Each listing once per window, at its newest observation there: an asking snapshot whose listing
-- was seen again by the window's end is superseded. The $since bound (the earliest window start,
-- worked out by the caller) lets DuckDB skip every row group older than the oldest window.
in_window AS (
    SELECT o.model, o.kind, o.obs_date, o.usd, ln(o.usd) AS lp
    FROM price_observations AS o JOIN anchors AS a USING (model, kind)
    WHERE o.obs_date <= a.anchor AND o.obs_date > a.anchor - $window_days
      AND (o.next_date IS NULL OR o.next_date > a.anchor)
      AND o.obs_date > $since AND o.obs_date <= $as_of
),
-- Each window's prices as one list, then the rule on the list: one grouping instead of three.
windows AS (
    SELECT model, kind, list(lp) AS lps, list(usd) AS usds, list(obs_date) AS days FROM in_window GROUP BY ALL
),
centred AS (
    SELECT *, list_aggregate(lps, 'median') AS med FROM windows
),
spread AS (
    SELECT *, greatest(3 * 1.4826 * list_aggregate(list_transform(lps, lambda x: abs(x - med)), 'median'), ln(1.5)) AS tol
    FROM centred
),
kept AS (
    SELECT model, kind, list_filter(usds, lambda u, i: abs(lps[i] - med) <= tol) AS k,
           list_max(list_filter(days, lambda d, i: abs(lps[i] - med) <= tol)) AS price_as_of
    FROM spread
),
stats AS (
    SELECT model, kind, len(k) AS n, list_aggregate(k, 'median') AS med_usd,
           list_aggregate(k, 'quantile_cont', 0.25) AS q1, list_aggregate(k, 'quantile_cont', 0.75) AS q3, price_as_of
    FROM kept WHERE len(k) >= $min_count
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
