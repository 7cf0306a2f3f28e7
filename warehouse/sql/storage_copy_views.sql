-- The views of one attached database: the copy made by the storage conversion must have every
-- view of the original.
SELECT view_name FROM duckdb_views() WHERE database_name = ? AND NOT internal ORDER BY 1;
