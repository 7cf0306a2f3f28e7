-- Prices for every as_of date from $start to $end at once, step 1 of 4 ($start, $end, $window_days):
-- the observations and, for each day, the trailing window its price comes from when that counts.
--
-- The result equals warehouse/models/marts/prices_daily.sql run once per day, row for row. warehouse/models/marts/prices_daily.sql judges each
-- window afresh (median and MAD of the window, then the kept prices' median and quartiles), so the
-- backfill does too: step 2 (backfill_prices_windows.sql) gathers each needed window's prices as a
-- list and applies the same aggregates to it. Only the bookkeeping is shared across days: the
-- observations are read once, and a listing's membership in windows is precomputed.
--
-- A listing counts once per window, at its newest observation there. So observation j of a listing
-- serves the windows ending on anchor days from its own date up to the day before the listing's
-- next observation (price_observations.next_date), and at most $window_days of them:
-- [obs_date, last_anchor].
DELETE FROM prices_daily WHERE as_of BETWEEN $start AND $end;

CREATE OR REPLACE TEMP TABLE backfill_groups AS
WITH spans AS (
    SELECT model, kind, obs_date, usd,
           least(obs_date + ($window_days - 1), coalesce(next_date - 1, obs_date + ($window_days - 1))) AS last_anchor
    FROM price_observations
    WHERE kind IN ('sold', 'asking') AND obs_date <= $end
)
-- One row per (model, kind, day, last anchor day): the unit a window is assembled from.
SELECT model, kind, obs_date, last_anchor, list(usd) AS usds FROM spans GROUP BY ALL ORDER BY obs_date;

-- The daily rule's first choice for each day: the trailing window ending that day, for every model
-- and kind observed in it. Step 2 judges these windows, and the days whose trailing window does not
-- count then look for an earlier one (backfill_prices_fallback.sql).
CREATE OR REPLACE TEMP TABLE backfill_anchors AS
WITH obs_days AS (
    SELECT DISTINCT model, kind, obs_date FROM backfill_groups
),
series AS (
    SELECT DISTINCT model, kind FROM obs_days
),
days AS (
    SELECT CAST(d AS DATE) AS as_of FROM range(CAST($start AS DATE), CAST($end AS DATE) + 1, INTERVAL 1 DAY) AS r(d)
)
SELECT s.model, s.kind, d.as_of, d.as_of AS anchor
FROM series AS s CROSS JOIN days AS d
ASOF JOIN obs_days AS o ON o.model = s.model AND o.kind = s.kind AND o.obs_date <= d.as_of
WHERE o.obs_date > d.as_of - $window_days;

-- The windows step 2 judges next (this table, then the fallback's).
CREATE OR REPLACE TEMP TABLE backfill_needed AS SELECT DISTINCT model, kind, anchor FROM backfill_anchors;

CREATE OR REPLACE TEMP TABLE backfill_stats (
    model VARCHAR, kind VARCHAR, anchor DATE, n BIGINT, quartiles DOUBLE[], price_as_of DATE
);
