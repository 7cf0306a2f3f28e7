-- The rental ranking of the newest rental date (rent_ranking_latest) with the user's filters; every
-- filter is a bound parameter and NULL means "any". $spot: rank by the cheapest spot price instead
-- (models without one left out); otherwise models with only a spot price are left out.
SELECT *
FROM rent_ranking_latest
WHERE ($min_memory IS NULL OR memory_gb >= $min_memory)
  AND (CASE WHEN $spot THEN spot_rank IS NOT NULL ELSE rank IS NOT NULL END)
ORDER BY CASE WHEN $spot THEN spot_rank ELSE rank END, model
LIMIT coalesce($top, 1000000);
