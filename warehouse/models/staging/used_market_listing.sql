-- Whether a listing can be a used-market price observation: one used, refurbished or open-box card,
-- matched to a model. The rule stg_price_observations and the load's incremental refresh
-- (sql/refresh_price_observations.sql) both apply.
CREATE OR REPLACE MACRO used_market_listing(model, quantity, condition_class) AS
    model IS NOT NULL AND coalesce(quantity, 1) = 1 AND condition_class IN ('used', 'refurbished', 'open_box');
