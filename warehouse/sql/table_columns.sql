-- A stored table's columns in order (warehouse/record_tables.py): what a load of a record kind's
-- batch compares its own columns with.
SELECT column_name, data_type, is_nullable
FROM duckdb_columns()
WHERE database_name = current_database() AND schema_name = 'main' AND table_name = $table
ORDER BY column_index;
