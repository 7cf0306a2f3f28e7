-- A rental load's offers, registered as incoming_rental_offers from an Arrow batch whose columns are
-- the table's (models/rental.py: RentalOffer's stored fields and OfferLoad's; extras as JSON text).
INSERT INTO rental_offers BY NAME SELECT * FROM incoming_rental_offers;
