-- Every performance figure is about a catalog card.
SELECT count(*) FROM perf p ANTI JOIN gpus g USING (model);
