-- What the spec estimate reads of each card that states a memory bandwidth.
SELECT model, vendor, architecture, segment, bandwidth_gb_s, fp32_tflops, fp16_tflops,
       tensor_fp16_tflops, l2_cache_mb, memory_gb, tensor_cores, memory_type, release_date, chip, tdp_w
FROM gpus
WHERE bandwidth_gb_s > 0;
