-- `gpuvalue gpus`: catalog rows with the source of each value; $model picks one card exactly,
-- else $query is a case-insensitive part of the name (NULL: every card). Where the query stands as
-- a whole name part in some name ("A100" in "A100 PCIe 40 GB"), names holding it only as the start
-- of a longer number ("RTX A1000") are left out; a query that is nowhere whole ("RTX 30") keeps
-- every name it is part of.
WITH asked AS (SELECT '(^|[^a-z0-9])' || regexp_escape(lower($query)) || '([^0-9]|$)' AS whole),
     named AS (SELECT *, regexp_matches(lower(model), (SELECT whole FROM asked)) AS whole_match FROM gpus)
SELECT model, vendor, architecture, segment, release_date, memory_gb, bandwidth_gb_s, fp32_tflops,
       fp16_tflops, tensor_fp16_tflops, compute_capability, form_factor, launch_price_usd, framework_supported,
       desktop_usable, released, provenance, framework_support, tdp_w, memory_type, memory_bus_bits
FROM named
WHERE CASE WHEN $model IS NOT NULL THEN model = $model
           ELSE $query IS NULL OR (contains(lower(model), lower($query))
                                   AND (whole_match OR NOT EXISTS (SELECT 1 FROM named WHERE whole_match))) END
ORDER BY model;
