-- The newest ranking day. Recreated at every migrate: a view over ranking_daily.* keeps the columns
-- it was created with, and DuckDB 1.4 clients refuse it once the table has more.
CREATE OR REPLACE VIEW ranking_latest AS
    SELECT * FROM ranking_daily WHERE as_of = (SELECT max(as_of) FROM ranking_daily);
