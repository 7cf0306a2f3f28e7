-- The tables of one attached database (the original or its copy in the compatible storage format):
-- the conversion counts each one's rows in both and keeps the copy only when every count matches.
SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = ? ORDER BY ALL;
