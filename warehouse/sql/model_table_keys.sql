-- Every stored table's primary and unique keys, for comparing a warehouse with its model files.
SELECT table_name, constraint_type, CAST(constraint_column_names AS VARCHAR) AS columns
FROM duckdb_constraints()
WHERE database_name = current_database() AND schema_name = 'main'
  AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')
ORDER BY ALL;
