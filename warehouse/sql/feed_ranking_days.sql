-- Every ranked day's rows for the feed: a daily item per day, and each day's class leaders are
-- compared with the day before's.
SELECT * FROM ranking_daily ORDER BY as_of, rank, model;
