-- Prices for every as_of date, step 3 of 4 ($start, $end, $window_days, $min_count): the days whose
-- trailing window does not count fall back, as in warehouse/models/marts/prices_daily.sql, to the newest window that
-- counts among those ending on an observation day before the trailing window.
--
-- backfill_fallback_days: each model, kind and day without a trailing window that counts but with
-- observations before it (last_anchor: the newest window end allowed). backfill_needed: the
-- windows those days may take, ending on an observation day, holding at least $min_count
-- observations before outliers (fewer can never count), and not judged yet; step 2 judges them.
CREATE OR REPLACE TEMP TABLE backfill_fallback_days AS
WITH counted AS (
    SELECT a.model, a.kind, a.as_of
    FROM backfill_anchors AS a JOIN backfill_stats AS s USING (model, kind, anchor)
    WHERE s.n >= $min_count
),
firsts AS (
    SELECT model, kind, min(obs_date) AS first_day FROM backfill_groups GROUP BY ALL
),
days AS (
    SELECT CAST(d AS DATE) AS as_of FROM range(CAST($start AS DATE), CAST($end AS DATE) + 1, INTERVAL 1 DAY) AS r(d)
)
SELECT f.model, f.kind, d.as_of, d.as_of - $window_days AS last_anchor
FROM firsts AS f JOIN days AS d ON d.as_of - $window_days >= f.first_day
ANTI JOIN counted AS c ON c.model = f.model AND c.kind = f.kind AND c.as_of = d.as_of;

CREATE OR REPLACE TEMP TABLE backfill_needed AS
WITH reach AS (
    SELECT model, kind, max(last_anchor) AS last_anchor FROM backfill_fallback_days GROUP BY ALL
),
per_day AS (
    SELECT model, kind, obs_date, sum(len(usds)) AS n FROM backfill_groups GROUP BY ALL
),
raw AS (
    SELECT model, kind, obs_date,
           sum(n) OVER (PARTITION BY model, kind ORDER BY obs_date - DATE '1970-01-01'
                        RANGE BETWEEN $window_days - 1 PRECEDING AND CURRENT ROW) AS raw_n
    FROM per_day
)
SELECT r.model, r.kind, r.obs_date AS anchor
FROM raw AS r JOIN reach AS e ON e.model = r.model AND e.kind = r.kind AND r.obs_date <= e.last_anchor
ANTI JOIN backfill_stats AS s ON s.model = r.model AND s.kind = r.kind AND s.anchor = r.obs_date
WHERE r.raw_n >= $min_count;
