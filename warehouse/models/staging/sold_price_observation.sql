-- Whether a used-market listing is a sold price observation: sold, with a sale date and a USD total.
CREATE OR REPLACE MACRO sold_price_observation(sold, sold_at, usd) AS
    sold AND usd > 0 AND sold_at IS NOT NULL;
