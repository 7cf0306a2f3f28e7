-- Per provider, whether any of its stored offers states the host's reliability and verification
-- (`gpuvalue rent --min-reliability/--verified` says which providers those filters leave out).
SELECT provider, bool_or(reliability IS NOT NULL) AS states_reliability, bool_or(verified IS NOT NULL) AS states_verified
FROM rental_offers
GROUP BY provider
ORDER BY provider;
