-- The derived price observations agree with the listings they come from.
SELECT count(*) FROM (
    (SELECT * FROM price_observations EXCEPT ALL SELECT * FROM stg_price_observations)
    UNION ALL
    (SELECT * FROM stg_price_observations EXCEPT ALL SELECT * FROM price_observations)
);
