-- Every ranked day's rows for the feed: a daily item per day, and each day's class leaders are
-- compared with the day before's; with the short name of the source of an index price.
SELECT r.*, s.label AS price_source_label
FROM ranking_daily AS r
LEFT JOIN sources AS s ON s.name = r.price_source
ORDER BY r.as_of, r.rank, r.model;
