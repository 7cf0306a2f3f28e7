-- `gpuvalue perf`: relative performance per card at one precision, rescaled to the reference card.
-- $estimate: the spec estimate for every card, else the figure the ranking uses (perf_best); perf_low and
-- perf_high bound its 80 % interval on the same scale.
-- $model picks one card, else $query is a part of the name; $everything lifts the default filter
-- (cards with a measured figure, catalog cards from 2016 on with 4 GB or more in the desktop,
-- workstation or datacenter segment, and the reference card).
WITH best AS (
         SELECT * FROM perf_best WHERE NOT $estimate AND precision = $p
         UNION ALL
         SELECT * FROM perf_with_interval WHERE $estimate AND source = 'estimate' AND precision = $p
     ),
     ref AS (SELECT relative_perf AS r FROM best WHERE model = $ref),
     asked AS (SELECT '(^|[^a-z0-9])' || regexp_escape(lower($query)) || '([^0-9]|$)' AS whole),
     named AS (SELECT model, regexp_matches(lower(model), (SELECT whole FROM asked)) AS whole_match FROM best)
SELECT best.model, relative_perf / coalesce((SELECT r FROM ref), 1.0) AS relative_perf, source, method,
       $ref AS reference, precision, as_of, uncertainty,
       perf_low / coalesce((SELECT r FROM ref), 1.0) AS perf_low,
       perf_high / coalesce((SELECT r FROM ref), 1.0) AS perf_high
FROM best LEFT JOIN gpus AS g USING (model)
WHERE CASE
    WHEN $model IS NOT NULL THEN best.model = $model
    -- A query that stands whole in some name ("A100") leaves out names holding it only as the start
    -- of a longer number ("RTX A1000"), as gpu_rows.sql does.
    WHEN $query IS NOT NULL THEN contains(lower(best.model), lower($query))
         AND (EXISTS (SELECT 1 FROM named WHERE named.model = best.model AND whole_match)
              OR NOT EXISTS (SELECT 1 FROM named WHERE whole_match))
    WHEN $everything THEN true
    ELSE EXISTS (SELECT 1 FROM perf AS m WHERE m.model = best.model AND m.measured)
         OR (g.release_date >= DATE '2016-01-01' AND g.memory_gb >= 4
             AND g.segment IN ('desktop', 'workstation', 'datacenter'))
         OR best.model = $ref
END
ORDER BY relative_perf DESC, best.model;
