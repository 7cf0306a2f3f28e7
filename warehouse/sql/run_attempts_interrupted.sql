-- Runs and imports still 'running' when a new run holds the lock: none of them can be alive, so each
-- is marked interrupted (an import's note, what it had loaded, kept before), and returned for the new
-- run to say so.
UPDATE run_attempts SET status = 'interrupted',
       note = coalesce(note || '; ', '')
              || 'did not finish: found still running by run ' || $run_id || ' at ' || strftime($now, '%Y-%m-%d %H:%M UTC')
WHERE status = 'running' AND run_id <> $run_id
RETURNING run_id, as_of, started_at;
