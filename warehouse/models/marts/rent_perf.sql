-- Relative training performance as the latest ranking measured it: perf_best at the ranking's
-- precision, rescaled so its reference card is 1.0 (as warehouse/models/marts/ranking_daily.sql does); before any ranking, fp16
-- relative to the GeForce RTX 3090 (the settings' defaults).
CREATE OR REPLACE VIEW rent_perf AS
WITH ranked AS (
    SELECT coalesce((SELECT any_value(perf_precision) FROM ranking_latest), 'fp16') AS perf_precision,
           coalesce((SELECT any_value(reference_gpu) FROM ranking_latest), 'GeForce RTX 3090') AS reference_gpu
),
best AS (
    SELECT b.* FROM perf_best AS b, ranked AS r WHERE b.precision = r.perf_precision
),
ref AS (
    SELECT b.relative_perf AS ref_perf FROM best AS b, ranked AS r WHERE b.model = r.reference_gpu
)
SELECT b.model, b.relative_perf / coalesce((SELECT ref_perf FROM ref), 1.0) AS relative_perf,
       b.source AS perf_source, b.method AS perf_method, r.perf_precision, r.reference_gpu
FROM best AS b, ranked AS r;
