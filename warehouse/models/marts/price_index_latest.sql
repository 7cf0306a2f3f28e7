-- Each model's newest index month: what prices a card without any own observation (kind 'index',
-- with its month and quantity). Several rows for one model and month (two sources, two names): the
-- one with the most sales, then by source and name, so the choice is deterministic.
CREATE OR REPLACE VIEW price_index_latest AS
SELECT model, source, gpu_name, month, avg_sold_usd, quantity_sold, published
FROM price_index_monthly
WHERE model IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY model ORDER BY month DESC, quantity_sold DESC NULLS LAST, source, gpu_name
) = 1;
