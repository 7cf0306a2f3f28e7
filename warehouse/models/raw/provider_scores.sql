-- A provider's own speed score for its offers, as the rental source that reads it declares it
-- (scrapers/sources/: its Source's provider_score), stored by the load of that source's offers: each
-- offer of the provider carries the score in rental_offers.extras under `extra`, and `gpuvalue rent`
-- shows it per card beside gpuvalue's own figure, never as a measurement (warehouse/rental.py), as the
-- JSON fields `field`, `field`_relative and `field`_as_of and in a column headed `header`.
CREATE TABLE IF NOT EXISTS provider_scores (
    provider  VARCHAR NOT NULL,   -- lower case, as rental_offers.provider
    extra     VARCHAR NOT NULL,   -- the key of rental_offers.extras that holds the score of a whole offer
    field     VARCHAR NOT NULL,   -- the public JSON name of the per-card score
    header    VARCHAR NOT NULL,   -- the column `gpuvalue rent` shows it in
    meaning   VARCHAR NOT NULL,   -- what it is, for the line below the table
    caveat    VARCHAR NOT NULL,   -- why it is no measurement
    source    VARCHAR NOT NULL,   -- the source that declared it
    PRIMARY KEY (provider, extra)
);
