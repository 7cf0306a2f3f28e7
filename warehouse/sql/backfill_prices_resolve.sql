-- Prices for every as_of date, step 4 of 4 ($start, $end, $window_days, $min_count, $comparable_days):
-- each day takes, per model and kind, its trailing window when that counts, else the newest earlier
-- window that counts (step 3), then the daily rule's choice between sold and asking (sold_price_wins).
INSERT INTO prices_daily BY NAME
WITH fresh AS (
    SELECT a.as_of, s.* FROM backfill_anchors AS a JOIN backfill_stats AS s USING (model, kind, anchor)
    WHERE s.n >= $min_count
),
-- Windows ending on an observation day: a trailing window of a day without observations is no
-- candidate for a later day's fallback, as in the daily rule.
obs_days AS (
    SELECT DISTINCT model, kind, obs_date AS anchor FROM backfill_groups
),
counted AS (
    SELECT s.* FROM backfill_stats AS s SEMI JOIN obs_days AS o USING (model, kind, anchor)
    WHERE s.n >= $min_count
),
fallback AS (
    SELECT f.as_of, c.* FROM backfill_fallback_days AS f
    ASOF JOIN counted AS c ON c.model = f.model AND c.kind = f.kind AND c.anchor <= f.last_anchor
),
resolved AS (
    SELECT * FROM fresh UNION ALL SELECT * FROM fallback
),
paired AS (
    SELECT *, max(price_as_of) FILTER (WHERE kind = 'sold') OVER (PARTITION BY as_of, model) AS sold_as_of,
           max(price_as_of) FILTER (WHERE kind = 'asking') OVER (PARTITION BY as_of, model) AS asking_as_of
    FROM resolved
),
chosen AS (
    SELECT *, row_number() OVER (
        PARTITION BY as_of, model
        ORDER BY (kind = 'sold') = sold_price_wins(sold_as_of, asking_as_of, as_of, $window_days, $comparable_days) DESC,
                 price_as_of DESC
    ) AS pick
    FROM paired
)
SELECT as_of, model,
       own_price_usd(kind, quartiles[2], quartiles[1]) AS price_usd,
       kind AS price_kind, n AS price_n, round(quartiles[1], 2) AS price_q1, round(quartiles[3], 2) AS price_q3,
       price_as_of, $window_days AS window_days,
       own_price_method(kind) AS method
FROM chosen WHERE pick = 1;

DROP TABLE backfill_stats;
DROP TABLE backfill_needed;
DROP TABLE backfill_fallback_days;
DROP TABLE backfill_anchors;
DROP TABLE backfill_groups;
