-- The catalog as the title matcher needs it.
SELECT model, vendor, segment, memory_gb, release_date, launch_price_usd FROM gpus;
