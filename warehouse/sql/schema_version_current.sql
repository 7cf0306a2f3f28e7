-- The database's schema version, compared at every open with the newest shipped migration: older
-- is migrated (or refused read-only), newer is refused. NULL (no row yet) is version 0.
SELECT max(version) FROM schema_version;
