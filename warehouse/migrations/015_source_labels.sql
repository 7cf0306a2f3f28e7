-- Schema version 15: the short name a user reads beside a number a source supplied (an index price's
-- "Tom's Hardware eBay index"), declared by the source and written by every run with the rest of its
-- row. NULL until the next run writes it, or for a source that declares none: outputs show its name.
ALTER TABLE sources ADD COLUMN label VARCHAR;
