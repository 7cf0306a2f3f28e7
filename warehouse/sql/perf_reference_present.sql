-- Whether a precision has figures at all, and one for the reference card.
SELECT count(*) FILTER (WHERE model = $ref) > 0, count(*) > 0
FROM (SELECT model FROM perf_best WHERE NOT $estimate AND precision = $p
      UNION ALL SELECT model FROM perf WHERE $estimate AND source = 'estimate' AND precision = $p);
