-- A fit's cross-validated error, kept by the digest of its inputs for the next run on the same
-- inputs. Rows are never replaced: a digest already stored keeps its row.
INSERT INTO perf_estimate_cv (inputs_digest, precision, model_version, trained_cards, cv_median_abs_error,
                              computed_at, form, group_errors)
VALUES (?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT DO NOTHING;
