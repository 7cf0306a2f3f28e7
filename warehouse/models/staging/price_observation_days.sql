-- Observations per model, kind and day: finds each model's newest observation before a day without
-- reading the observations themselves. Recounted from price_observations by every load.
CREATE TABLE IF NOT EXISTS price_observation_days (
    model    VARCHAR NOT NULL,
    kind     VARCHAR NOT NULL,
    obs_date DATE NOT NULL,
    n        BIGINT NOT NULL
);
