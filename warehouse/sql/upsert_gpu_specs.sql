-- Versioned spec history: incoming_specs(model, source, fetched_at, spec_hash, spec).
-- Same content as the current version: only fetched_at moves. Changed content: the current
-- version is closed (valid_to) and a new one opens (valid_from), nothing is overwritten.
UPDATE gpu_specs AS g SET fetched_at = i.fetched_at
FROM incoming_specs AS i
WHERE g.model = i.model AND g.source = i.source AND g.valid_to IS NULL
  AND g.spec_hash = i.spec_hash AND i.fetched_at > g.fetched_at;

UPDATE gpu_specs AS g SET valid_to = i.fetched_at
FROM incoming_specs AS i
WHERE g.model = i.model AND g.source = i.source AND g.valid_to IS NULL
  AND g.spec_hash <> i.spec_hash AND i.fetched_at > g.valid_from;

INSERT INTO gpu_specs (model, source, valid_from, valid_to, fetched_at, spec_hash, spec)
SELECT i.model, i.source, i.fetched_at, NULL, i.fetched_at, i.spec_hash, i.spec
FROM incoming_specs AS i
WHERE NOT EXISTS (
    SELECT 1 FROM gpu_specs AS g
    WHERE g.model = i.model AND g.source = i.source
      AND (g.valid_to IS NULL AND g.spec_hash = i.spec_hash OR g.valid_from = i.fetched_at)
);
