-- Imports that stopped partway (killed, Ctrl-C, a failure) and were not imported again to their end:
-- their data sets hold part of a file. Importing the file again loads the rest (a sale is stored once),
-- and a later whole import of the same data set settles them.
SELECT count(*) FROM run_attempts AS a
WHERE a.run_id LIKE 'import:%' AND a.status IN ('running', 'interrupted', 'failed')
  AND NOT EXISTS (SELECT 1 FROM run_attempts AS b
                  WHERE b.status = 'ok' AND b.started_at > a.started_at
                    AND split_part(b.run_id, '@', 1) = split_part(a.run_id, '@', 1));
