-- The rental ranking of the newest rental date (rent_ranking_latest) with the user's filters; every
-- filter is a bound parameter and NULL means "any". $spot: rank by the cheapest spot price instead
-- (models without one left out); otherwise models with only a spot price are left out.
SELECT r.*
FROM rent_ranking_latest AS r
WHERE ($min_memory IS NULL OR r.memory_gb >= $min_memory)
  AND (CASE WHEN $spot THEN r.spot_rank IS NOT NULL ELSE r.rank IS NOT NULL END)
ORDER BY CASE WHEN $spot THEN r.spot_rank ELSE r.rank END, r.model
LIMIT coalesce($top, 1000000);
