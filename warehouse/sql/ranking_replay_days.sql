-- The ranking days whose newest run replayed recorded pages (as ranking_day_replay.sql asks of one
-- day): the feed marks each such day's item, in one query for all its days.
SELECT as_of
FROM runs
WHERE as_of IS NOT NULL
QUALIFY row_number() OVER (PARTITION BY as_of ORDER BY started_at DESC, run_id DESC) = 1 AND replay;
