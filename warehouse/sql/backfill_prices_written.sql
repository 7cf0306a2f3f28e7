-- What a price backfill reports: the price rows prices_daily now holds for the days it replaced (?, ?).
SELECT count(*) FROM prices_daily WHERE as_of BETWEEN ? AND ?;
