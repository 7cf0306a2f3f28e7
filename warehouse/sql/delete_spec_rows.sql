-- Reparse rebuilds a spec source from its raw archive: its stored versions go first, so the
-- rebuilt ones are all that remain (the catalog is rebuilt from gpu_specs afterwards).
DELETE FROM gpu_specs WHERE source = $source;
