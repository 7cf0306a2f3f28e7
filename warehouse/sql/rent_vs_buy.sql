-- The rent-or-buy inputs of every rental card (rent_vs_buy_inputs), cheapest reference-card hour first.
SELECT * FROM rent_vs_buy_inputs ORDER BY usd_per_gpu_hour / relative_perf NULLS LAST, model;
