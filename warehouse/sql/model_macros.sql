-- Every macro's parameters and definition as DuckDB stored them, for comparing a warehouse with its
-- model files.
SELECT function_name, CAST(parameters AS VARCHAR) AS parameters, macro_definition
FROM duckdb_functions()
WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal
  AND function_type IN ('macro', 'table_macro')
ORDER BY ALL;
