-- Whether the database has been migrated at all: a new file has no schema_version table, and
-- reading it would fail, so opening asks the catalog first (0 means schema version 0).
SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version';
