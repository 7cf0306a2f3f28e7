-- The price history the feed's week-over-week price drops are found in. The own price kinds only:
-- a published index's months (kind 'index') are no price moves.
SELECT as_of, model, price_usd, price_kind, price_n FROM price_history
WHERE price_kind IN ('sold', 'asking', 'launch')
ORDER BY model, as_of;
