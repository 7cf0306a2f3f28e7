-- A row stored before the per-kind errors were kept (migration 026) gains them (? = JSON of
-- {kind: [median abs error, cards]}, inputs digest); errors already kept are never changed.
UPDATE perf_estimate_cv SET group_errors = ? WHERE inputs_digest = ? AND group_errors IS NULL;
