-- The provider scores the rental sources declared, in the order `gpuvalue rent` shows their columns.
SELECT provider, extra, field, header, meaning, caveat, source
FROM provider_scores
ORDER BY provider, extra;
