-- Prices for every as_of date from $start to $end at once ($window_days, $min_count).
--
-- Same observations, window, staleness and price choice as prices_daily.sql, computed with
-- windowed aggregates over each model's observations in date order instead of one window per
-- day. A day's trailing window (anchor - $window_days, anchor] is a RANGE frame over the day
-- number; days without an observation get a marker row so their frame is evaluated too.
--
-- One approximation (measured in docs/benchmarks.md, bounded in tests/test_backfill.py): the daily
-- MAD outlier rule judges a point afresh in each of the $window_days windows that contain it; here
-- each point is judged once, against the median and MAD of the window of the same width centred on
-- its own date (which is robust at the start of a series, where a trailing window would hold the
-- point alone). The MAD is the median of each point's distance to its own centred median. The
-- window medians and quartiles of the price itself are exact. Since the tolerance is never under
-- log 1.5, only points near the tolerance edge can be judged differently.
DELETE FROM prices_daily WHERE as_of BETWEEN $start AND $end;

INSERT INTO prices_daily BY NAME
WITH obs AS (
    SELECT model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date, total_usd AS usd
    FROM listings
    WHERE sold AND model IS NOT NULL AND total_usd > 0 AND coalesce(quantity, 1) = 1
      AND condition_class IN ('used', 'refurbished', 'open_box') AND sold_at IS NOT NULL
      AND CAST(sold_at AS DATE) <= $end
    UNION ALL
    SELECT l.model, 'asking' AS kind, s.seen_date AS obs_date, s.total_usd AS usd
    FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
    WHERE NOT l.sold AND l.model IS NOT NULL AND s.total_usd > 0 AND coalesce(l.quantity, 1) = 1
      AND l.condition_class IN ('used', 'refurbished', 'open_box')
      AND l.buying_option NOT LIKE '%AUCTION%' AND s.seen_date <= $end
),
centred AS (
    SELECT model, kind, obs_date, usd, ln(usd) AS lp, obs_date - DATE '1970-01-01' AS day_no,
           median(ln(usd)) OVER w AS med
    FROM obs
    WINDOW w AS (PARTITION BY model, kind ORDER BY obs_date - DATE '1970-01-01'
                 RANGE BETWEEN $window_days // 2 PRECEDING AND $window_days // 2 FOLLOWING)
),
judged AS (
    SELECT model, kind, obs_date, day_no,
           CASE WHEN abs(lp - med) <= greatest(3 * 1.4826 * median(abs(lp - med)) OVER w, ln(1.5))
                THEN usd END AS kept_usd
    FROM centred
    WINDOW w AS (PARTITION BY model, kind ORDER BY day_no
                 RANGE BETWEEN $window_days // 2 PRECEDING AND $window_days // 2 FOLLOWING)
),
series AS (
    SELECT DISTINCT model, kind FROM judged
),
days AS (
    SELECT CAST(d AS DATE) AS as_of FROM range(CAST($start AS DATE), CAST($end AS DATE) + 1, INTERVAL 1 DAY) AS r(d)
),
markers AS (
    SELECT s.model, s.kind, d.as_of AS obs_date, d.as_of - DATE '1970-01-01' AS day_no,
           CAST(NULL AS DOUBLE) AS kept_usd, true AS marker
    FROM series AS s CROSS JOIN days AS d
),
windows AS (
    SELECT model, kind, obs_date AS anchor, marker,
           count(*) FILTER (WHERE NOT marker) OVER w AS n_all,
           count(kept_usd) OVER w AS n,
           quantile_cont(kept_usd, [0.25, 0.5, 0.75]) OVER w AS quartiles,
           max(CASE WHEN kept_usd IS NOT NULL THEN obs_date END) OVER w AS price_as_of
    FROM (SELECT *, false AS marker FROM judged UNION ALL SELECT * FROM markers)
    WINDOW w AS (PARTITION BY model, kind ORDER BY day_no
                 RANGE BETWEEN $window_days - 1 PRECEDING AND CURRENT ROW)
),
-- One row per (model, kind, anchor day): a marker where there is one, else the first observation row.
anchored AS (
    SELECT * FROM windows
    QUALIFY row_number() OVER (PARTITION BY model, kind, anchor ORDER BY marker DESC) = 1
),
-- The newest observation on or before each day decides whether the day's own window is used
-- or the window ending on that newest observation (a stale price).
newest AS (
    SELECT model, kind, obs_date AS as_of,
           max(CASE WHEN NOT marker THEN obs_date END) OVER (
               PARTITION BY model, kind ORDER BY day_no, marker ROWS UNBOUNDED PRECEDING) AS last_date,
           marker
    FROM (SELECT model, kind, obs_date, day_no, marker FROM markers
          UNION ALL SELECT DISTINCT model, kind, obs_date, day_no, false FROM judged)
    QUALIFY marker
),
resolved AS (
    SELECT nw.as_of, a.*
    FROM newest AS nw
    JOIN anchored AS a
      ON a.model = nw.model AND a.kind = nw.kind
     AND a.anchor = CASE WHEN nw.last_date > nw.as_of - $window_days THEN nw.as_of ELSE nw.last_date END
    WHERE nw.last_date IS NOT NULL AND a.n >= $min_count
),
chosen AS (
    SELECT *, row_number() OVER (
        PARTITION BY as_of, model
        ORDER BY (price_as_of > as_of - $window_days) DESC, (kind = 'sold') DESC, price_as_of DESC
    ) AS pick
    FROM resolved
)
SELECT as_of, model,
       round(CASE WHEN kind = 'sold' THEN quartiles[2] ELSE quartiles[1] END, 2) AS price_usd,
       kind AS price_kind, n AS price_n, round(quartiles[1], 2) AS price_q1, round(quartiles[3], 2) AS price_q3,
       price_as_of, $window_days AS window_days,
       CASE WHEN kind = 'sold' THEN 'median of sold, MAD outlier rule'
            ELSE 'lower quartile of fixed-price asking, MAD outlier rule' END AS method
FROM chosen WHERE pick = 1;
