-- Every source a run recorded is described (kind, attribution, licence) for exports.
SELECT count(DISTINCT r.source) FROM runs r
WHERE r.stage <> 'stage' AND r.source NOT LIKE 'import:%'
  AND EXISTS (SELECT 1 FROM sources) AND r.source NOT IN (SELECT name FROM sources);
