-- Per listing source: how many listings and the newest observation behind today's prices.
SELECT source, count(*) AS listings, count(model) AS matched,
       max(coalesce(sold_at, last_seen)) AS newest
FROM listings GROUP BY source ORDER BY source;
