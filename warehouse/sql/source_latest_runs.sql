-- The exports' sources list: each source's newest run gives its status, and its last successful
-- live run says when its data was fetched (a replay fetches nothing).
SELECT source, status,
       max(CASE WHEN status = 'ok' AND NOT replay THEN coalesce(finished_at, started_at) END)
           OVER (PARTITION BY source) AS last_live_ok
FROM runs
QUALIFY row_number() OVER (PARTITION BY source ORDER BY started_at DESC, run_id DESC) = 1;
