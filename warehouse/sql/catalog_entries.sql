-- The catalog as the title matcher needs it.
SELECT model, vendor, segment, memory_gb, release_date FROM gpus;
