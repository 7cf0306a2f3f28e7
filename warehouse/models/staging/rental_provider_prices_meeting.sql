-- The rental price rule, per provider: each model's price at each provider, on each date some rental
-- source has data for, from the offers that meet the asked terms: one provider (provider_only, lower
-- case), hosts of at least min_host_reliability, verified hosts only (verified_hosts_only); NULL or
-- false: any. An offer that states no reliability or verification does not meet a term on it.
-- rental_provider_prices is this rule with no terms; `gpuvalue rent --provider/--min-reliability/
-- --verified` ranks on it with them (rent_ranked).
--
-- On a date, every (source, provider) counts with its newest capture on or before that date, so a
-- provider a source dated earlier (SkyPilot's files carry their own dates) still counts; a provider
-- stays until its source publishes it again. A provider's price for a card is its newest published
-- one: two sources may publish one provider's prices a year apart (FSDL's table of 2025-03 and a
-- SkyPilot file of 2024-03 both list Lambda), so per date, model and provider only the offers of the
-- newest date that prices the model count (on-demand and spot apart); of those, the cheapest, with
-- its host's terms. Only matched offers (model not NULL) have a model's price.
CREATE OR REPLACE MACRO rental_provider_prices_meeting(provider_only, min_host_reliability, verified_hosts_only) AS TABLE
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
),
current_offers AS (
    SELECT cc.day, o.*,
           max(o.as_of) FILTER (WHERE o.usd_per_gpu_hour IS NOT NULL)
               OVER (PARTITION BY cc.day, o.model, o.provider) AS newest_price_day,
           max(o.as_of) FILTER (WHERE o.spot_usd_per_gpu_hour IS NOT NULL)
               OVER (PARTITION BY cc.day, o.model, o.provider) AS newest_spot_day
    FROM current_captures AS cc
    JOIN rental_offers AS o ON o.source = cc.source AND o.provider = cc.provider AND o.as_of = cc.as_of
    WHERE o.model IS NOT NULL
      AND (provider_only IS NULL OR o.provider = provider_only)
      AND (min_host_reliability IS NULL OR o.reliability >= min_host_reliability)
      AND (NOT verified_hosts_only OR o.verified)
),
offers AS (
    SELECT *,
           CASE WHEN as_of = newest_price_day THEN usd_per_gpu_hour END AS usd,
           CASE WHEN as_of = newest_spot_day THEN spot_usd_per_gpu_hour END AS spot_usd
    FROM current_offers
)
SELECT day AS as_of, model, provider,
       min(usd) AS usd_per_gpu_hour,
       first(instance_type ORDER BY usd, source, offer_key) FILTER (WHERE usd IS NOT NULL) AS instance_type,
       first(gpu_count ORDER BY usd, source, offer_key) FILTER (WHERE usd IS NOT NULL) AS gpu_count,
       first(as_of ORDER BY usd, source, offer_key) FILTER (WHERE usd IS NOT NULL) AS price_as_of,
       first(source ORDER BY usd, source, offer_key) FILTER (WHERE usd IS NOT NULL) AS price_source,
       first(reliability ORDER BY usd, source, offer_key) FILTER (WHERE usd IS NOT NULL) AS host_reliability,
       first(verified ORDER BY usd, source, offer_key) FILTER (WHERE usd IS NOT NULL) AS host_verified,
       min(spot_usd) AS spot_usd_per_gpu_hour,
       first(as_of ORDER BY spot_usd, source, offer_key) FILTER (WHERE spot_usd IS NOT NULL) AS spot_as_of,
       count(*) AS offers
FROM offers
GROUP BY day, model, provider;
