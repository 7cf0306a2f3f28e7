-- Whether a ranking day's newest run replayed recorded pages rather than fetching live: the exports,
-- the feed and the report say so, since a replayed price is as old as its recording.
SELECT replay FROM runs WHERE as_of = ? ORDER BY started_at DESC, run_id DESC LIMIT 1;
