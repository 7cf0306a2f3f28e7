-- What a ranking backfill reports: the ranking rows ranking_daily now holds for the days it replaced (?, ?).
SELECT count(*) FROM ranking_daily WHERE as_of BETWEEN ? AND ?;
