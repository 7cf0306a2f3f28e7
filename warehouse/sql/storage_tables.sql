-- Every table of the open warehouse, for `gpuvalue check` to read back whole: a damaged block shows
-- only when it is read, and the SQL checks read few columns of few tables.
SELECT schema_name, table_name FROM duckdb_tables() WHERE database_name = current_database() ORDER BY ALL;
