-- Prices for every as_of date, step 2 of 4 ($a0, $a1, $window_days): the price statistics
-- of every needed window (backfill_needed) ending from $a0 to $a1, run once per three months of
-- anchors to bound memory; run for the trailing windows, then again for the fallback's.
--
-- A RANGE frame over the day groups collects each window's groups as a list of lists; groups whose
-- listings were seen again before the anchor (last_anchor) drop out. Then, on the window's prices,
-- exactly the aggregates of warehouse/models/marts/prices_daily.sql: median of log price, MAD, kept prices, quartiles.
-- Kept prices form one contiguous price range [kmin, kmax] (log is monotonic), which finds the
-- newest day with a kept price without recomputing logs.
INSERT INTO backfill_stats
WITH needed AS (
    SELECT DISTINCT model, kind, anchor FROM backfill_needed WHERE anchor BETWEEN $a0 AND $a1
),
-- Only the groups inside some needed window: every frame evaluated at a needed anchor is complete.
context AS (
    SELECT g.model, g.kind, g.obs_date, g.last_anchor, g.usds, false AS marker
    FROM backfill_groups AS g
    WHERE g.obs_date > CAST($a0 AS DATE) - $window_days AND g.obs_date <= $a1
      AND EXISTS (SELECT 1 FROM needed AS n WHERE n.model = g.model AND n.kind = g.kind
                  AND g.obs_date <= n.anchor AND g.obs_date > n.anchor - $window_days)
    UNION ALL
    -- Each needed anchor gets a marker row whose frame is the window (a group row may share its day).
    SELECT model, kind, anchor, DATE '0001-01-01', CAST([] AS DOUBLE[]), true FROM needed
),
framed AS (
    SELECT model, kind, obs_date AS anchor,
           list(usds) OVER w AS gv, list(obs_date) OVER w AS gd, list(last_anchor) OVER w AS ge,
           list(list_min(usds)) OVER w AS glo, list(list_max(usds)) OVER w AS ghi
    FROM context
    WINDOW w AS (PARTITION BY model, kind ORDER BY obs_date - DATE '1970-01-01' RANGE BETWEEN $window_days - 1 PRECEDING AND CURRENT ROW)
    QUALIFY marker
),
win AS (
    SELECT f.model, f.kind, f.anchor, gv, gd, ge, glo, ghi, flatten(list_filter(gv, lambda g, i: ge[i] >= f.anchor)) AS usds
    FROM framed AS f
),
centred AS (
    SELECT *, list_aggregate(lps, 'median') AS med
    FROM (SELECT *, list_transform(usds, lambda x: ln(x)) AS lps FROM win)
),
spread AS (
    SELECT *, greatest(3 * 1.4826 * list_aggregate(list_transform(lps, lambda y: abs(y - med)), 'median'), ln(1.5)) AS tol
    FROM centred
),
kept AS (
    SELECT *, list_min(k) AS kmin, list_max(k) AS kmax
    FROM (SELECT model, kind, anchor, gv, gd, ge, glo, ghi, list_filter(usds, lambda x: abs(ln(x) - med) <= tol) AS k
          FROM spread)
)
SELECT model, kind, anchor, len(k) AS n, list_aggregate(k, 'quantile_cont', [0.25, 0.5, 0.75]) AS quartiles,
       -- A group holds a kept price when its cheapest or dearest price is kept, never when all its
       -- prices lie on one side of the kept range, and otherwise only a scan can tell.
       list_max(list_transform(gv, lambda g, i: CASE
           WHEN ge[i] < anchor OR ghi[i] < kmin OR glo[i] > kmax THEN NULL
           WHEN glo[i] >= kmin OR ghi[i] <= kmax THEN gd[i]
           WHEN len(list_filter(g, lambda x: x BETWEEN kmin AND kmax)) > 0 THEN gd[i] END)) AS price_as_of
FROM kept;
