-- The exchange rates listings were converted with, by day.
CREATE TABLE IF NOT EXISTS fx_rates (
    rate_date    DATE NOT NULL,
    currency     VARCHAR NOT NULL,
    usd_per_unit DOUBLE NOT NULL,
    source       VARCHAR NOT NULL,
    PRIMARY KEY (rate_date, currency)
);
