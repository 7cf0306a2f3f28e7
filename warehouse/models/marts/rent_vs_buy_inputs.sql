-- What the rent-or-buy comparison needs per rental card: its rental prices and performance, and,
-- where the latest ranking day prices it used (sold or asking), that price with its basis and date.
-- The arithmetic, which depends on the assumptions (holding period, resale value, electricity,
-- hours a week), is models/rent_vs_buy.py's.
CREATE OR REPLACE VIEW rent_vs_buy_inputs AS
SELECT r.model, r.vendor, r.segment, r.memory_gb, r.tdp_w, r.framework_supported, r.desktop_usable,
       r.relative_perf, r.perf_source, r.perf_precision, r.reference_gpu,
       r.usd_per_gpu_hour, r.provider, r.instance_type, r.spot_usd_per_gpu_hour, r.spot_provider,
       r.price_as_of AS rental_as_of, r.providers,
       u.price_usd AS used_price_usd, u.price_kind AS used_price_kind, u.price_n AS used_price_n,
       u.price_as_of AS used_price_as_of, u.stale AS used_price_stale, u.as_of AS ranking_as_of
FROM rent_ranking_latest AS r
-- A card priced only by the used-price index (kind 'index', its month as price_as_of) is compared too,
-- labelled by its kind: the index is an average of sold prices, never mixed with own ones.
LEFT JOIN (SELECT * FROM ranking_latest WHERE price_kind IN ('sold', 'asking', 'index')) AS u USING (model);
