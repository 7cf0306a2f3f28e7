-- `gpuvalue perf MODEL`: a card's harness runs that give it no figure at one precision, and why:
-- runs kept out of the ranking (their stored reason), and usable single-card training runs of a
-- harness that has no figure for the card (no other card ran the same workloads at that batch, or
-- nothing to chain the harness through).
WITH runs AS (
    SELECT harness, device, excluded, batch_size, gpu_count, mode, count(*) AS figures
    FROM harness_figures
    WHERE model = $model AND (precision = $precision OR excluded IS NOT NULL)
    GROUP BY ALL
)
SELECT harness, device, figures,
       CASE
           WHEN excluded IS NOT NULL THEN 'kept out: ' || excluded
           ELSE 'no ' || $precision || ' figure from this harness: no other card ran its workloads at batch '
                || coalesce(CAST(batch_size AS VARCHAR), 'unknown') || ', or no shared card links it to the reference'
       END AS why
FROM runs AS r
WHERE excluded IS NOT NULL
   OR (mode = 'train' AND gpu_count = 1
       AND NOT EXISTS (SELECT 1 FROM perf AS p
                       WHERE p.model = $model AND p.precision = $precision AND p.source = r.harness))
ORDER BY harness, device;
