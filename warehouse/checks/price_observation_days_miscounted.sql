SELECT count(*) FROM (
    (SELECT model, kind, obs_date, n FROM price_observation_days
     EXCEPT ALL SELECT model, kind, obs_date, count(*) FROM price_observations GROUP BY ALL)
    UNION ALL
    (SELECT model, kind, obs_date, count(*) FROM price_observations GROUP BY ALL
     EXCEPT ALL SELECT model, kind, obs_date, n FROM price_observation_days)
);
