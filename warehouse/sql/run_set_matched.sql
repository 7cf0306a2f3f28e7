-- How many of a listing source's rows matched a catalog model, kept beside its run.
UPDATE runs SET matched = $matched WHERE run_id = $run_id AND source = $source;
