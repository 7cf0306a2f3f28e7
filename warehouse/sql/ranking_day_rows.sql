-- One day's ranking, every column: the rows of the CSV and JSON downloads and of the chart report
-- (whose rent-or-buy section reads them too), with the short name of the source of an index price.
SELECT * FROM ranking_labelled WHERE as_of = ? ORDER BY rank, model;
