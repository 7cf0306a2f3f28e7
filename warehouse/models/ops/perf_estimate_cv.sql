-- The spec estimate's cross-validated error and chosen form, kept by a digest of its inputs. The
-- nested cross-validation behind every estimate's uncertainty, and the choice of form (tensor rate,
-- memory term, family offsets) by leave-one-card-out, are most of the estimate stage's time and
-- change only when the training figures, the training cards' specs or the model code change (all of
-- which the digest covers), so a run reuses a stored row and computes a new one otherwise. Rows are
-- never updated but to fill in a missing form or per-kind errors; old digests are harmless.
CREATE TABLE IF NOT EXISTS perf_estimate_cv (
    inputs_digest       VARCHAR PRIMARY KEY,   -- models.perf.digest.estimate_inputs_digest
    precision           VARCHAR NOT NULL,
    model_version       VARCHAR NOT NULL,      -- the estimator that was cross-validated
    trained_cards       INTEGER NOT NULL,
    cv_median_abs_error DOUBLE NOT NULL,       -- 0.065 == 6.5 %
    computed_at         TIMESTAMP NOT NULL,
    form                VARCHAR,               -- the form chosen; NULL on rows written before it was kept
    group_errors        VARCHAR                -- JSON {kind of card: [median abs error, cards]} of the same
                                               -- nested cross-validation; NULL on rows written before it was kept
);
