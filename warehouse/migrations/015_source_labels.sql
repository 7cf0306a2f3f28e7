-- Schema version 15: the short name a user reads beside a number a source supplied (ops/sources.sql).
-- NULL until the next run writes it.
ALTER TABLE sources ADD COLUMN IF NOT EXISTS label VARCHAR;
