-- Whether a used-market listing's snapshot is an asking price observation: unsold, at a fixed price
-- (an auction's current bid is never a price; an auction counts once sold), with a USD total.
CREATE OR REPLACE MACRO asking_price_observation(sold, buying_option, usd) AS
    NOT sold AND usd > 0 AND coalesce(buying_option, '') NOT LIKE '%AUCTION%';
