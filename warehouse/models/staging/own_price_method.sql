-- How own_price_usd made a card's price from a window of that kind, as prices_daily.method shows it.
CREATE OR REPLACE MACRO own_price_method(kind) AS
    CASE WHEN kind = 'sold' THEN 'median of sold, MAD outlier rule'
         ELSE 'lower quartile of fixed-price asking, MAD outlier rule' END;
