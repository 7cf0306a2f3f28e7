-- One day's ranking, every column: the rows of the CSV and JSON downloads and of the chart report
-- (whose rent-or-buy section reads them too), with the short name of the source of an index price.
SELECT r.*, s.label AS price_source_label
FROM ranking_daily AS r
LEFT JOIN sources AS s ON s.name = r.price_source
WHERE r.as_of = ?
ORDER BY r.rank, r.model;
