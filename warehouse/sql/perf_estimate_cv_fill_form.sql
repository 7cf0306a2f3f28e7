-- A row stored before the chosen form was kept (migration 014) gains it (? = form, inputs digest);
-- a form already kept is never changed.
UPDATE perf_estimate_cv SET form = ? WHERE inputs_digest = ? AND form IS NULL;
