-- Prices for every as_of date, step 3 of 3 ($start, $end, $window_days, $min_count): each day takes its window's
-- statistics, then the daily rule's choice between sold and asking.
INSERT INTO prices_daily BY NAME
WITH resolved AS (
    SELECT a.as_of, s.* FROM backfill_anchors AS a JOIN backfill_stats AS s USING (model, kind, anchor)
    WHERE s.n >= $min_count
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

DROP TABLE backfill_stats;
DROP TABLE backfill_anchors;
DROP TABLE backfill_groups;
