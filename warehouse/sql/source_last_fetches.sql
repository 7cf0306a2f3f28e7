-- Per source, its newest run (status, rows, the day the run was for, whether it was a replay, when it
-- started, its error or warnings) and its newest run that stored something (rows and day):
-- what `gpuvalue sources` shows beside each registered source.
WITH newest AS (
    SELECT source, status, rows, as_of, replay, started_at, error
    FROM runs
    QUALIFY row_number() OVER (PARTITION BY source ORDER BY started_at DESC, run_id DESC) = 1
),
stored AS (
    SELECT source, rows AS ok_rows, as_of AS ok_as_of, replay AS ok_replay, coalesce(finished_at, started_at) AS ok_at
    FROM runs
    WHERE status = 'ok' AND coalesce(rows, 0) > 0
    QUALIFY row_number() OVER (PARTITION BY source ORDER BY started_at DESC, run_id DESC) = 1
)
SELECT n.source, n.status, n.rows, n.as_of, n.replay, n.started_at, n.error,
       s.ok_rows, s.ok_as_of, s.ok_replay, s.ok_at
FROM newest AS n
LEFT JOIN stored AS s USING (source)
ORDER BY n.source;
