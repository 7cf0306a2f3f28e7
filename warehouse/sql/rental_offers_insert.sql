-- A rental load's offers, registered as incoming_rental_offers from an Arrow batch built with
-- rental._schema: these columns are that schema's names, in its order (extras as JSON text).
INSERT INTO rental_offers (source, provider, offer_key, instance_type, region, as_of, gpu_name, model, match_reason,
                           gpu_count, usd_per_hour, usd_per_gpu_hour, spot_usd_per_hour, spot_usd_per_gpu_hour,
                           gpu_memory_gb, vcpus, memory_gib, loaded_at, reliability, verified, extras)
SELECT source, provider, offer_key, instance_type, region, as_of, gpu_name, model, match_reason,
       gpu_count, usd_per_hour, usd_per_gpu_hour, spot_usd_per_hour, spot_usd_per_gpu_hour,
       gpu_memory_gb, vcpus, memory_gib, loaded_at, reliability, verified, CAST(extras AS JSON)
FROM incoming_rental_offers;
