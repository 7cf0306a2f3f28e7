-- Every ranked day's rows for the feed: a daily item per day, and each day's class leaders are
-- compared with the day before's; with the short name of the source of an index price.
SELECT * FROM ranking_labelled ORDER BY as_of, rank, model;
