-- A rental source's declaration of its provider's own score (provider_scores), stored with its offers:
-- the newest load's words stand.
INSERT OR REPLACE INTO provider_scores (provider, extra, field, header, meaning, caveat, source)
VALUES ($provider, $extra, $field, $header, $meaning, $caveat, $source);
