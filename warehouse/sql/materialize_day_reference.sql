-- Before a day is ranked: whether the precision has any figure at all, and one for the
-- reference card (without it nothing can be expressed relative to it, and the run says so).
SELECT (SELECT count(*) FROM perf_best WHERE model = $reference AND precision = $precision) AS has_reference,
       (SELECT count(*) FROM perf WHERE precision = $precision) AS has_any;
