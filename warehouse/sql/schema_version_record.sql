-- One applied migration (version, file name, applied_at in UTC), in the same transaction as the
-- migration itself, so a failed migration leaves no row and runs again next time.
INSERT INTO schema_version VALUES (?, ?, ?);
