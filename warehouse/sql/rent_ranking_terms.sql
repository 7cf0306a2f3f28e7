-- The rental ranking of the newest rental date counting only the offers that meet the user's terms:
-- one provider ($provider, lower case: `gpuvalue rent --provider P`), hosts of a stated reliability
-- of at least $min_reliability and verified ones ($verified): `--min-reliability R --verified`. NULL
-- or false: any. The rule is rent_ranked's (warehouse/models/marts/), over fewer offers; the filters
-- are rent_ranking.sql's.
SELECT *
FROM rent_ranked($provider, $min_reliability, $verified, $comparable_days)
WHERE ($min_memory IS NULL OR memory_gb >= $min_memory)
  AND (CASE WHEN $spot THEN spot_rank IS NOT NULL ELSE rank IS NOT NULL END)
ORDER BY CASE WHEN $spot THEN spot_rank ELSE rank END, model
LIMIT coalesce($top, 1000000);
