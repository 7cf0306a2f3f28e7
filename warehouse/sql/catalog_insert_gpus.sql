-- incoming_gpus: the rebuilt catalog as Arrow, one row per card, columns as load.GPUS_COLUMNS
-- (provenance already JSON text). Written out, not BY NAME, so a column the batch lacks fails.
INSERT INTO gpus (
    model, vendor, architecture, generation, chip, segment, release_date, released,
    memory_gb, memory_type, memory_bus_bits, bandwidth_gb_s, fp32_tflops, fp16_tflops,
    tensor_fp16_tflops, tensor_cores, l2_cache_mb, tdp_w, bus_interface, form_factor,
    slot_width, launch_price_usd, compute_capability, framework_supported, desktop_usable,
    framework_support, tpu_url, provenance, updated_at)
SELECT
    model, vendor, architecture, generation, chip, segment, release_date, released,
    memory_gb, memory_type, memory_bus_bits, bandwidth_gb_s, fp32_tflops, fp16_tflops,
    tensor_fp16_tflops, tensor_cores, l2_cache_mb, tdp_w, bus_interface, form_factor,
    slot_width, launch_price_usd, compute_capability, framework_supported, desktop_usable,
    framework_support, tpu_url, provenance, updated_at
FROM incoming_gpus;
