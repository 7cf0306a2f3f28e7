-- Every stored table's columns as the catalog has them, for comparing a warehouse with its model
-- files (warehouse/layers.py): name, position, type, nullability and default.
SELECT c.table_name, c.column_index, c.column_name, c.data_type, c.is_nullable, c.column_default
FROM duckdb_columns() AS c
JOIN duckdb_tables() AS t USING (database_name, schema_name, table_name)
WHERE c.database_name = current_database() AND c.schema_name = 'main' AND NOT t.temporary
ORDER BY c.table_name, c.column_index;
