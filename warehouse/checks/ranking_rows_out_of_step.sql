-- A ranked row's price must be above zero and its perf per $1000 the figure warehouse/models/marts/ranking_daily.sql computes from its
-- own relative_perf and price (rounded to 4 places): anything else ranks a card by a number it does not show.
SELECT count(*) FROM ranking_daily
WHERE NOT (price_usd > 0) OR NOT (relative_perf > 0)
   OR abs(perf_per_dollar - round(relative_perf / price_usd * 1000, 4)) > 0.00005;
