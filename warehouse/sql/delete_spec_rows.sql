DELETE FROM gpu_specs WHERE source = $source;
