-- Sources whose row count today ($run) is below $share of their median over the last $window
-- successful runs (at least $min_n of them): the usual sign of a block or a markup change.
WITH past AS (
    SELECT source, rows FROM runs
    WHERE status = 'ok' AND run_id <> $run AND rows IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY source ORDER BY started_at DESC) <= $window
), hist AS (SELECT source, median(rows) AS med, count(*) AS n FROM past GROUP BY source)
SELECT r.source, r.rows, h.med FROM runs AS r JOIN hist AS h USING (source)
WHERE r.run_id = $run AND r.status = 'ok' AND h.n >= $min_n AND r.rows < $share * h.med
ORDER BY r.source;
