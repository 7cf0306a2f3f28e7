-- The measured figures the harnesses are combined with (Lambda's): every measured perf row except
-- the derived sources' and those that are not another source's measurements ($skip).
SELECT model, precision, relative_perf, source, method, reference, workloads, as_of
FROM perf
WHERE measured AND NOT list_contains($skip, source)
ORDER BY ALL;
