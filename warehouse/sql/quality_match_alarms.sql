-- Listing sources whose share of rows matched to a model today ($run) is more than $drop below
-- its median over the last $window runs (at least $min_n): titles or the page changed.
WITH rate AS (
    SELECT run_id, source, started_at, matched / rows AS rate
    FROM runs WHERE status = 'ok' AND rows > 0 AND matched IS NOT NULL
), past AS (
    SELECT source, rate FROM rate WHERE run_id <> $run
    QUALIFY row_number() OVER (PARTITION BY source ORDER BY started_at DESC) <= $window
), hist AS (SELECT source, median(rate) AS med, count(*) AS n FROM past GROUP BY source)
SELECT r.source, r.rate, h.med FROM rate AS r JOIN hist AS h USING (source)
WHERE r.run_id = $run AND h.n >= $min_n AND r.rate < h.med - $drop
ORDER BY r.source;
