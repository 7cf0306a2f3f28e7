-- `gpuvalue gpus`: catalog rows with the source of each value; $model picks one card exactly,
-- else $query is a case-insensitive part of the name (NULL: every card).
SELECT model, vendor, architecture, segment, release_date, memory_gb, bandwidth_gb_s, fp32_tflops,
       fp16_tflops, tensor_fp16_tflops, compute_capability, form_factor, launch_price_usd, framework_supported,
       desktop_usable, released, provenance, framework_support, tdp_w, memory_type, memory_bus_bits
FROM gpus
WHERE CASE WHEN $model IS NOT NULL THEN model = $model
           ELSE $query IS NULL OR contains(lower(model), lower($query)) END
ORDER BY model;
