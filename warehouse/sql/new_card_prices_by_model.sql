-- Prices of new (sealed) cards per model (the new_card_prices view): shown beside a used price
-- where new costs little more.
SELECT model, price_kind, price_n, price_usd, price_q1, price_q3, price_as_of
FROM new_card_prices
ORDER BY model, price_kind = 'sold' DESC, price_as_of DESC;
