-- The newest daily runs, each with how many of its sources loaded and failed.
SELECT a.run_id, a.as_of, a.replay, a.pid, a.started_at, a.finished_at, a.status, a.note,
       count(r.source) FILTER (WHERE r.status = 'ok') AS sources_ok,
       count(r.source) FILTER (WHERE r.status = 'failed') AS sources_failed
FROM run_attempts AS a
LEFT JOIN runs AS r USING (run_id)
GROUP BY ALL
ORDER BY a.started_at DESC, a.run_id DESC
LIMIT $limit;
