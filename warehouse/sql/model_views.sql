-- Every view's text as DuckDB stored it, for comparing a warehouse with its model files.
SELECT view_name, sql
FROM duckdb_views()
WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal AND NOT temporary
ORDER BY view_name;
