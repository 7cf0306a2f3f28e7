-- A rental load replaces, for its source, every date its batch holds (even a date whose offers were
-- all dropped as impossible prices); the source's other dates stay as history. ? = source, list of dates.
DELETE FROM rental_offers WHERE source = ? AND list_contains(?, as_of);
