-- Schema version 24: the listings table is declared by its record (models/listing_row.py), where a
-- listing's quantity is always known (one unless the source states more) and a listing is unsold
-- unless the source says it sold: quantity is NOT NULL, and both columns default as the record
-- does, as a new warehouse makes them. A row an older load left without a quantity holds the one.
UPDATE listings SET quantity = 1 WHERE quantity IS NULL;
ALTER TABLE listings ALTER COLUMN quantity SET NOT NULL;
ALTER TABLE listings ALTER COLUMN quantity SET DEFAULT 1;
ALTER TABLE listings ALTER COLUMN sold SET DEFAULT false;
