-- One day's ranking, every column: the rows of the CSV and JSON downloads and of the chart report
-- (whose rent-or-buy section reads them too).
SELECT * FROM ranking_daily WHERE as_of = ? ORDER BY rank, model;
