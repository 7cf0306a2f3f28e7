SELECT count(*) FROM ranking_daily r ANTI JOIN gpus g USING (model);
