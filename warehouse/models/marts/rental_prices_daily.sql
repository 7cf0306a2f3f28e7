-- Per model and date, across providers (rental_model_prices with no terms, rebuilt after every rental
-- load by the statements below): the cheapest on-demand price per GPU-hour with its provider, instance
-- and date (price_as_of), the median of the providers' cheapest on-demand prices, the cheapest spot
-- price, and how many providers price the model. The cheapest price within 90 days of the date's
-- newest price counts (RENT_COMPARABLE_DAYS in warehouse/rental.py), an older one only where no
-- recent one exists, with its tier: price_tier and spot_tier ('recent' / 'older'; NULL without such
-- a price).
CREATE TABLE IF NOT EXISTS rental_prices_daily (
    as_of                       DATE NOT NULL,
    model                       VARCHAR NOT NULL,
    cheapest_usd_per_gpu_hour   DOUBLE,          -- NULL when only spot prices exist
    provider                    VARCHAR,         -- of the cheapest on-demand offer
    instance_type               VARCHAR,
    gpu_count                   INTEGER,
    median_usd_per_gpu_hour     DOUBLE,          -- across providers' cheapest on-demand prices
    spot_usd_per_gpu_hour       DOUBLE,          -- cheapest spot
    spot_provider               VARCHAR,
    provider_count              INTEGER NOT NULL,
    providers                   VARCHAR NOT NULL, -- comma-separated, sorted
    offers                      INTEGER NOT NULL,
    price_as_of                 DATE NOT NULL,    -- date of the cheapest on-demand price (of the spot one without)
    spot_as_of                  DATE,
    price_tier                  VARCHAR,
    spot_tier                   VARCHAR,
    PRIMARY KEY (as_of, model)
);

-- Its build, run by sql_files.build(con, "rental_prices_daily", params): the statements below the CREATE.
-- Small enough (a few hundred models x dates) to rebuild whole after each rental load, so the history
-- always follows the offers.
DELETE FROM rental_prices_daily;

INSERT INTO rental_prices_daily BY NAME
SELECT * EXCLUDE (host_reliability, host_verified)
FROM rental_model_prices(NULL, NULL, false, $comparable_days);
