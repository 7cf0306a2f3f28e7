-- Published used-market price indexes (monthly average sold prices per card), kept apart from the
-- pipeline's own observations: an index is somebody else's average over a month, so it never enters
-- price_observations or prices_daily. It serves price_index_vs_own (a check of the own sold prices),
-- price_index_latest (the price of a card without own observations) and price_history (kind 'index').
CREATE TABLE IF NOT EXISTS price_index_monthly (
    source        VARCHAR NOT NULL,
    gpu_name      VARCHAR NOT NULL,            -- as published
    model         VARCHAR,                     -- catalog model, NULL when the name is not exactly one card
    match_reason  VARCHAR NOT NULL,
    month         DATE NOT NULL,               -- first day of the month the prices are for
    avg_sold_usd  DOUBLE NOT NULL,
    quantity_sold INTEGER,                     -- NULL when the index gives no count
    published     DATE NOT NULL,               -- first day of the month of the article it was read from
    loaded_at     TIMESTAMP NOT NULL,
    prices_averaged INTEGER,                   -- an index of asking prices: how many its figure is the mean of (025)
    read_from     VARCHAR,                     -- the published file the row was read from (a report's page.tsx) (025)
    PRIMARY KEY (source, gpu_name, month)
);
