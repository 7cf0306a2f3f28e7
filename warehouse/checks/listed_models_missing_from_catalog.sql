-- A listing matched to a model the catalog does not hold: its price would rank a card no spec describes.
-- A warehouse without a catalog yet (listings imported before the first run, matched against the
-- embedded catalog) is not held to it: its first run builds the catalog.
SELECT count(*) FROM listings l
WHERE l.model IS NOT NULL AND EXISTS (SELECT 1 FROM gpus) AND l.model NOT IN (SELECT model FROM gpus);
