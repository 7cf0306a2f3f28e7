-- The storage format DuckDB reports for the open database (e.g. 'v1.4.0+'): a file in a format
-- newer than STORAGE_VERSION is converted when opened for writing (db.migrate_storage).
SELECT tags['storage_version'] FROM duckdb_databases() WHERE database_name = current_database();
