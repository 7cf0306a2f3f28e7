-- A price index import's points (the newest article's where a batch repeats a month), registered as
-- incoming_price_index from an Arrow batch built with price_index._SCHEMA: these columns are that
-- schema's names, in its order.
INSERT INTO price_index_monthly (source, gpu_name, model, match_reason, month, avg_sold_usd, quantity_sold,
                                 prices_averaged, published, loaded_at, read_from)
SELECT source, gpu_name, model, match_reason, month, avg_sold_usd, quantity_sold, prices_averaged, published, loaded_at,
       read_from
FROM incoming_price_index;
