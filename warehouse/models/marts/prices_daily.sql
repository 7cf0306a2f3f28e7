-- Each model's used-market price on each ranked day (built below): the median of one
-- window's sold observations, else of its asking ones, else the launch price, with count, quartiles
-- and the date of the newest observation behind it.
CREATE TABLE IF NOT EXISTS prices_daily (
    as_of        DATE NOT NULL,
    model        VARCHAR NOT NULL,
    price_usd    DOUBLE NOT NULL,
    price_kind   VARCHAR NOT NULL,             -- sold|asking|launch
    price_n      INTEGER NOT NULL,
    price_q1     DOUBLE,
    price_q3     DOUBLE,
    price_as_of  DATE NOT NULL,                -- newest observation behind the price
    window_days  INTEGER NOT NULL,
    method       VARCHAR NOT NULL,
    PRIMARY KEY (as_of, model)
);

-- Its build, run by sql_files.build(con, "prices_daily", params): the statements below the CREATE.
-- Robust used-market price per model for one as_of date ($as_of, $window_days, $min_count,
-- $comparable_days).
--
-- Observations: price_observations (warehouse/models/staging/): sold listings by sale date and fixed-price
-- asking snapshots by the day seen, of one used, refurbished or open-box card each, matched to a
-- model, with a USD total (item + shipping). Auctions' current bids are never prices.
-- A listing seen on many days counts once per window, at its newest asking price there.
-- Outliers: on log price, points farther than 3 x 1.4826 x MAD (at least log 1.5) from the
-- window's median are dropped; a window counts when at least $min_count prices remain.
-- Each model and kind takes the newest window that counts: the trailing $window_days ending on
-- $as_of, else a window ending on an earlier observation day before the trailing window. Such
-- a price is kept but flagged stale by the ranking, never presented as today's. A thin newer
-- window never hides a full older one: a card with 13 sales a year ago and one sale last month
-- keeps the price of those 13 sales, stale, instead of dropping out of the ranking.
-- Price: median of sold listings when a sold window counts, else the lower quartile of asking
-- prices (flagged asking), else no price (the macros own_price_usd and own_price_method); a fresh price beats a stale one of either kind, and of two
-- stale ones the newer wins unless they are within $comparable_days of each other, where sold does
-- (the macro sold_price_wins, which the backfill applies too). Only the own kinds, sold and asking,
-- make a price: a published index (kind 'index') never does.
DELETE FROM prices_daily WHERE as_of = $as_of;

-- The windows judged, one row each: (model, kind, window end, day before the window's start).
CREATE OR REPLACE TEMP TABLE price_anchors (model VARCHAR, kind VARCHAR, anchor DATE, lo DATE);

CREATE OR REPLACE TEMP TABLE price_windows (
    model VARCHAR, kind VARCHAR, anchor DATE, n BIGINT, med_usd DOUBLE, q1 DOUBLE, q3 DOUBLE, price_as_of DATE
);

-- The statistics of every window in price_anchors, as one rule applied twice below. The bound on
-- obs_date from the oldest window lets DuckDB skip every row group older than it.
CREATE OR REPLACE TEMP VIEW price_window_stats AS
WITH in_window AS (
    SELECT o.model, o.kind, a.anchor, o.obs_date, o.usd, ln(o.usd) AS lp
    FROM price_observations AS o JOIN price_anchors AS a USING (model, kind)
    WHERE o.obs_date <= a.anchor AND o.obs_date > a.lo
      AND (o.next_date IS NULL OR o.next_date > a.anchor)
      AND o.obs_date > (SELECT min(lo) FROM price_anchors)
),
-- Each window's prices as one list, then the rule on the list: one grouping instead of three.
windows AS (
    SELECT model, kind, anchor, list(lp) AS lps, list(usd) AS usds, list(obs_date) AS days FROM in_window GROUP BY ALL
),
centred AS (
    SELECT *, list_aggregate(lps, 'median') AS med FROM windows
),
spread AS (
    SELECT *, greatest(3 * 1.4826 * list_aggregate(list_transform(lps, lambda x: abs(x - med)), 'median'), ln(1.5)) AS tol
    FROM centred
),
kept AS (
    SELECT model, kind, anchor, list_filter(usds, lambda u, i: abs(lps[i] - med) <= tol) AS k,
           list_max(list_filter(days, lambda d, i: abs(lps[i] - med) <= tol)) AS price_as_of
    FROM spread
)
SELECT model, kind, anchor, len(k) AS n, list_aggregate(k, 'median') AS med_usd,
       list_aggregate(k, 'quantile_cont', 0.25) AS q1, list_aggregate(k, 'quantile_cont', 0.75) AS q3, price_as_of
FROM kept;

-- First the trailing window of every model and kind observed in it.
INSERT INTO price_anchors
SELECT DISTINCT model, kind, CAST($as_of AS DATE), CAST($as_of AS DATE) - $window_days
FROM price_observation_days
WHERE kind IN ('sold', 'asking') AND obs_date <= $as_of AND obs_date > CAST($as_of AS DATE) - $window_days;

INSERT INTO price_windows SELECT * FROM price_window_stats;

-- Then, for each model and kind whose trailing window does not count, every window ending on an
-- observation day before the trailing window that holds at least $min_count observations
-- before outliers (fewer can never count, so they are not judged).
DELETE FROM price_anchors;

INSERT INTO price_anchors
WITH days AS (
    SELECT model, kind, obs_date,
           sum(n) OVER (PARTITION BY model, kind ORDER BY obs_date - DATE '1970-01-01'
                        RANGE BETWEEN $window_days - 1 PRECEDING AND CURRENT ROW) AS raw_n
    FROM price_observation_days WHERE kind IN ('sold', 'asking') AND obs_date <= CAST($as_of AS DATE) - $window_days
)
SELECT d.model, d.kind, d.obs_date, d.obs_date - $window_days
FROM days AS d
WHERE d.raw_n >= $min_count
  AND NOT EXISTS (SELECT 1 FROM price_windows AS w WHERE w.model = d.model AND w.kind = d.kind AND w.n >= $min_count);

INSERT INTO price_windows SELECT * FROM price_window_stats;

INSERT INTO prices_daily BY NAME
WITH newest AS (
    SELECT * FROM price_windows WHERE n >= $min_count
    QUALIFY row_number() OVER (PARTITION BY model, kind ORDER BY anchor DESC) = 1
),
paired AS (
    SELECT *, max(price_as_of) FILTER (WHERE kind = 'sold') OVER (PARTITION BY model) AS sold_as_of,
           max(price_as_of) FILTER (WHERE kind = 'asking') OVER (PARTITION BY model) AS asking_as_of
    FROM newest
),
chosen AS (
    SELECT *, row_number() OVER (
        PARTITION BY model
        ORDER BY (kind = 'sold') = sold_price_wins(sold_as_of, asking_as_of, CAST($as_of AS DATE), $window_days,
                                                   $comparable_days) DESC,
                 price_as_of DESC
    ) AS pick
    FROM paired
)
SELECT CAST($as_of AS DATE) AS as_of, model,
       own_price_usd(kind, med_usd, q1) AS price_usd,
       kind AS price_kind, n AS price_n, round(q1, 2) AS price_q1, round(q3, 2) AS price_q3,
       price_as_of, $window_days AS window_days,
       own_price_method(kind) AS method
FROM chosen WHERE pick = 1;

DROP VIEW price_window_stats;
DROP TABLE price_windows;
DROP TABLE price_anchors;
