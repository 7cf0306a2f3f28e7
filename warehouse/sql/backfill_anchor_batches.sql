-- Prices for every as_of date, between steps 1 and 2: the needed windows (backfill_needed) cut into
-- runs of ? calendar months, each judged by one run of backfill_prices_windows.sql, so that memory
-- stays bounded. One row per run: its first and last window end, oldest first.
SELECT min(anchor), max(anchor) FROM backfill_needed
GROUP BY (year(anchor) * 12 + month(anchor) - 1) // ? ORDER BY 1;
