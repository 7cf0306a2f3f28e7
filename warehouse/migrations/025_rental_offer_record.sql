-- Schema version 25: the rental_offers table is declared by its record (models/rental.py), whose
-- match_reason a parser leaves unset and the enrich stage fills: the column is nullable, as a new
-- warehouse makes it (every stored row has one).
ALTER TABLE rental_offers ALTER COLUMN match_reason DROP NOT NULL;
