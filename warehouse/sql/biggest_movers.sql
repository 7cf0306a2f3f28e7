-- Rank changes of $as_of against the previous ranked day, biggest first.
WITH prev AS (SELECT max(as_of) AS d FROM ranking_daily WHERE as_of < $as_of)
SELECT t.model, p.rank AS was, t.rank AS now, p.rank - t.rank AS up,
       t.price_usd, p.price_usd AS was_price_usd
FROM ranking_daily AS t
JOIN ranking_daily AS p ON p.model = t.model AND p.as_of = (SELECT d FROM prev)
WHERE t.as_of = $as_of AND p.rank <> t.rank
ORDER BY abs(p.rank - t.rank) DESC, t.model
LIMIT $limit;
