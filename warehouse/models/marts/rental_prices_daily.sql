-- Per model and date, across providers (rebuilt from rental_provider_prices after every rental load;
-- warehouse/models/marts/rental_prices_daily.sql): the cheapest on-demand price per GPU-hour with its provider, instance
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
-- Rebuild rental_prices_daily (warehouse/models/marts/) from every stored offer: per model and date, across
-- providers (rental_provider_prices: each provider at its newest price, each source at its newest
-- capture on or before the date). Small enough (a few hundred models x dates) to rebuild whole after
-- each rental load, so the history always follows the offers. Ties go to the provider name. The
-- chosen on-demand and spot prices are each one arg_min over (older, price, provider), carrying
-- the provider, instance, date and tier that go with them.
--
-- Comparable dates (migration 017, $comparable_days): a provider's newest price may be years older
-- than another's (a table published once, beside catalogs refreshed daily). A price within
-- $comparable_days of the date's newest price is recent; the cheapest recent price stands for the
-- model, an older one only where no recent price exists, and then its tier says 'older' (the
-- rental ranking puts such rows after every recent one). The same for spot prices, apart. The median
-- across providers is of the same prices: the recent ones where any is, else all of them.
DELETE FROM rental_prices_daily;

INSERT INTO rental_prices_daily BY NAME
WITH dated AS (
    SELECT *,
           price_as_of >= max(price_as_of) FILTER (WHERE usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY as_of)
               - $comparable_days AS recent,
           spot_as_of >= max(spot_as_of) FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) OVER (PARTITION BY as_of)
               - $comparable_days AS spot_recent
    FROM rental_provider_prices
),
chosen AS (
    SELECT as_of, model,
           arg_min({'usd': usd_per_gpu_hour, 'provider': provider, 'instance_type': instance_type,
                    'gpu_count': gpu_count, 'dated': price_as_of, 'recent': recent},
                   {'older': NOT recent, 'usd': usd_per_gpu_hour, 'provider': provider})
               FILTER (WHERE usd_per_gpu_hour IS NOT NULL) AS price,
           arg_min({'usd': spot_usd_per_gpu_hour, 'provider': provider, 'dated': spot_as_of, 'recent': spot_recent},
                   {'older': NOT spot_recent, 'usd': spot_usd_per_gpu_hour, 'provider': provider})
               FILTER (WHERE spot_usd_per_gpu_hour IS NOT NULL) AS spot,
           coalesce(median(usd_per_gpu_hour) FILTER (WHERE recent), median(usd_per_gpu_hour)) AS median_usd_per_gpu_hour,
           CAST(count(*) AS INTEGER) AS provider_count,
           string_agg(provider, ', ' ORDER BY provider) AS providers,
           CAST(sum(offers) AS INTEGER) AS offers
    FROM dated
    GROUP BY as_of, model
)
SELECT as_of, model,
       price.usd AS cheapest_usd_per_gpu_hour, price.provider, price.instance_type, price.gpu_count,
       median_usd_per_gpu_hour,
       spot.usd AS spot_usd_per_gpu_hour, spot.provider AS spot_provider,
       provider_count, providers, offers,
       coalesce(price.dated, spot.dated) AS price_as_of, spot.dated AS spot_as_of,
       CASE WHEN price.recent THEN 'recent' WHEN NOT price.recent THEN 'older' END AS price_tier,
       CASE WHEN spot.recent THEN 'recent' WHEN NOT spot.recent THEN 'older' END AS spot_tier
FROM chosen;
