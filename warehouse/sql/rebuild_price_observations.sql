-- Rebuild every price observation from listings and snapshots: after a re-match, a re-parse, or
-- any change made to the listings outside the load path. Stored in date order, which lets a
-- day's price read only its window.
DELETE FROM price_observations;

INSERT INTO price_observations BY NAME SELECT * FROM stg_price_observations ORDER BY obs_date;

DELETE FROM price_observation_days;

INSERT INTO price_observation_days BY NAME
SELECT model, kind, obs_date, count(*) AS n FROM price_observations GROUP BY ALL ORDER BY obs_date;
