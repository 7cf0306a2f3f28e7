-- Schema version 11: cloud GPU rental prices beside the used ones, for "rent or buy?".
--
-- rental_offers keeps every offer a rental source published, by the date of its data (as_of: a
-- commit date or a capture date), so a later capture adds rows and a re-load of a date replaces
-- that date's rows of its source. offer_key names the offer within its source, provider and date:
-- the instance type and region where the source gives them; where it gives no instance name (most
-- of FSDL's rows), the GPU name and count, numbered when one file lists that configuration twice.
CREATE TABLE rental_offers (
    source                 VARCHAR NOT NULL,
    provider               VARCHAR NOT NULL,   -- lower case: aws, lambda, runpod, vast, ...
    offer_key              VARCHAR NOT NULL,
    instance_type          VARCHAR,            -- as published; NULL when the source gives none
    region                 VARCHAR,
    as_of                  DATE NOT NULL,      -- the date of the data, not of the load
    gpu_name               VARCHAR NOT NULL,   -- as published
    model                  VARCHAR,            -- catalog model; NULL when the name does not settle one
    match_reason           VARCHAR NOT NULL,
    gpu_count              INTEGER NOT NULL,
    usd_per_hour           DOUBLE,             -- whole instance, on demand
    usd_per_gpu_hour       DOUBLE,             -- one of its GPUs, on demand
    spot_usd_per_hour      DOUBLE,
    spot_usd_per_gpu_hour  DOUBLE,
    gpu_memory_gb          DOUBLE,
    vcpus                  DOUBLE,
    memory_gib             DOUBLE,             -- host memory
    loaded_at              TIMESTAMP NOT NULL,
    PRIMARY KEY (source, provider, offer_key, as_of)
);

-- Each model's price at each provider, on each date some rental source has data for. On a date,
-- every (source, provider) counts with its newest capture on or before that date, so a provider a
-- source dated earlier (SkyPilot's files carry their own dates) still counts; a provider stays until
-- its source publishes it again. A provider listed by two sources counts once, at its cheaper offer.
-- Only matched offers (model not NULL) have a model's price.
CREATE VIEW rental_provider_prices AS
WITH days AS (
    SELECT DISTINCT as_of AS day FROM rental_offers
),
captures AS (
    SELECT DISTINCT source, provider, as_of FROM rental_offers
),
current_captures AS (
    SELECT d.day, c.source, c.provider, max(c.as_of) AS as_of
    FROM days AS d JOIN captures AS c ON c.as_of <= d.day
    GROUP BY ALL
)
SELECT cc.day AS as_of, o.model, o.provider,
       min(o.usd_per_gpu_hour) AS usd_per_gpu_hour,
       first(o.instance_type ORDER BY o.usd_per_gpu_hour, o.source, o.offer_key) FILTER (WHERE o.usd_per_gpu_hour IS NOT NULL) AS instance_type,
       first(o.gpu_count ORDER BY o.usd_per_gpu_hour, o.source, o.offer_key) FILTER (WHERE o.usd_per_gpu_hour IS NOT NULL) AS gpu_count,
       first(o.as_of ORDER BY o.usd_per_gpu_hour, o.source, o.offer_key) FILTER (WHERE o.usd_per_gpu_hour IS NOT NULL) AS price_as_of,
       first(o.source ORDER BY o.usd_per_gpu_hour, o.source, o.offer_key) FILTER (WHERE o.usd_per_gpu_hour IS NOT NULL) AS price_source,
       min(o.spot_usd_per_gpu_hour) AS spot_usd_per_gpu_hour,
       first(o.as_of ORDER BY o.spot_usd_per_gpu_hour, o.source, o.offer_key) FILTER (WHERE o.spot_usd_per_gpu_hour IS NOT NULL) AS spot_as_of,
       count(*) AS offers
FROM current_captures AS cc
JOIN rental_offers AS o ON o.source = cc.source AND o.provider = cc.provider AND o.as_of = cc.as_of
WHERE o.model IS NOT NULL
GROUP BY ALL;

-- Per model and date, across providers (rebuilt from rental_provider_prices after every rental load;
-- warehouse/sql/rental_prices_daily.sql): the cheapest on-demand price per GPU-hour with its provider,
-- instance and date (price_as_of), the median of the providers' cheapest on-demand prices, the
-- cheapest spot price, and how many providers price the model.
CREATE TABLE rental_prices_daily (
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
    PRIMARY KEY (as_of, model)
);

-- Relative training performance as the latest ranking measured it: perf_best at the ranking's
-- precision, rescaled so its reference card is 1.0 (as ranking.sql does); before any ranking, fp16
-- relative to the GeForce RTX 3090 (the settings' defaults).
CREATE VIEW rent_perf AS
WITH ranked AS (
    SELECT coalesce((SELECT any_value(perf_precision) FROM ranking_latest), 'fp16') AS perf_precision,
           coalesce((SELECT any_value(reference_gpu) FROM ranking_latest), 'GeForce RTX 3090') AS reference_gpu
),
best AS (
    SELECT b.* FROM perf_best AS b, ranked AS r WHERE b.precision = r.perf_precision
),
ref AS (
    SELECT b.relative_perf AS ref_perf FROM best AS b, ranked AS r WHERE b.model = r.reference_gpu
)
SELECT b.model, b.relative_perf / coalesce((SELECT ref_perf FROM ref), 1.0) AS relative_perf,
       b.source AS perf_source, b.method AS perf_method, r.perf_precision, r.reference_gpu
FROM best AS b, ranked AS r;

-- The rental ranking of the newest rental date: relative performance per cheapest on-demand dollar
-- per GPU-hour (perf_per_usd_hour: reference-card hours per dollar; usd_per_reference_hour its
-- inverse, what one hour of the reference card's training costs), and the same on the cheapest spot
-- price apart (spot_rank). Models without a performance figure are not ranked.
CREATE VIEW rent_ranking_latest AS
WITH latest AS (
    SELECT * FROM rental_prices_daily WHERE as_of = (SELECT max(as_of) FROM rental_prices_daily)
),
joined AS (
    SELECT l.as_of, l.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.tdp_w,
           g.framework_supported, g.desktop_usable,
           p.relative_perf, p.perf_source, p.perf_method, p.perf_precision, p.reference_gpu,
           l.cheapest_usd_per_gpu_hour AS usd_per_gpu_hour, l.provider, l.instance_type, l.gpu_count,
           l.median_usd_per_gpu_hour, l.spot_usd_per_gpu_hour, l.spot_provider,
           p.relative_perf / l.cheapest_usd_per_gpu_hour AS perf_per_usd_hour,
           l.cheapest_usd_per_gpu_hour / p.relative_perf AS usd_per_reference_hour,
           p.relative_perf / l.spot_usd_per_gpu_hour AS spot_perf_per_usd_hour,
           l.spot_usd_per_gpu_hour / p.relative_perf AS spot_usd_per_reference_hour,
           l.provider_count, l.providers, l.offers, l.price_as_of, l.spot_as_of
    FROM latest AS l
    JOIN rent_perf AS p USING (model)
    LEFT JOIN gpus AS g USING (model)
    WHERE p.relative_perf > 0
)
SELECT CASE WHEN usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
           PARTITION BY usd_per_gpu_hour IS NULL ORDER BY perf_per_usd_hour DESC, model) AS INTEGER) END AS rank,
       CASE WHEN spot_usd_per_gpu_hour IS NOT NULL THEN CAST(row_number() OVER (
           PARTITION BY spot_usd_per_gpu_hour IS NULL ORDER BY spot_perf_per_usd_hour DESC, model) AS INTEGER) END AS spot_rank,
       *
FROM joined;

-- What the rent-or-buy comparison needs per rental card: its rental prices and performance, and,
-- where the latest ranking day prices it used (sold or asking), that price with its basis and date.
-- The arithmetic, which depends on the assumptions (holding period, resale value, electricity,
-- hours a week), is models/rent_vs_buy.py's.
CREATE VIEW rent_vs_buy_inputs AS
SELECT r.model, r.vendor, r.segment, r.memory_gb, r.tdp_w, r.framework_supported, r.desktop_usable,
       r.relative_perf, r.perf_source, r.perf_precision, r.reference_gpu,
       r.usd_per_gpu_hour, r.provider, r.instance_type, r.spot_usd_per_gpu_hour, r.spot_provider,
       r.price_as_of AS rental_as_of, r.providers,
       u.price_usd AS used_price_usd, u.price_kind AS used_price_kind, u.price_n AS used_price_n,
       u.price_as_of AS used_price_as_of, u.stale AS used_price_stale, u.as_of AS ranking_as_of
FROM rent_ranking_latest AS r
-- A card priced only by the used-price index (kind 'index', its month as price_as_of) is compared too,
-- labelled by its kind: the index is an average of sold prices, never mixed with own ones.
LEFT JOIN (SELECT * FROM ranking_latest WHERE price_kind IN ('sold', 'asking', 'index')) AS u USING (model);
