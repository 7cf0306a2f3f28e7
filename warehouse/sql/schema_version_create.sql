-- The migration ledger, made before the first migration runs on a new database; each applied
-- migration adds its row (schema_version_record).
CREATE TABLE IF NOT EXISTS schema_version (
    version    INTEGER NOT NULL,
    name       VARCHAR NOT NULL,
    applied_at TIMESTAMP NOT NULL
);
