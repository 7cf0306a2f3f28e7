-- Schema version 34: what only one source states of a listing or an offer travels in one JSON
-- object, listings.extras and rental_offers.extras, under the names the source's module gives it, and a provider's own speed
-- score is declared by its source (provider_scores), not named by the shared code. vast.ai's DLPerf,
-- stored since schema 21 in vendor_score, moves into extras as "dlperf", with the declaration its
-- source module (scrapers/sources/vastai.py) makes, so `gpuvalue rent` shows the stored scores as
-- before (the JSON fields vast_dlperf, vast_dlperf_relative, vast_dlperf_as_of; the "vast score" column).
ALTER TABLE listings ADD COLUMN IF NOT EXISTS extras JSON;
ALTER TABLE rental_offers ADD COLUMN IF NOT EXISTS extras JSON;
UPDATE rental_offers SET extras = json_object('dlperf', vendor_score) WHERE vendor_score IS NOT NULL;
ALTER TABLE rental_offers DROP COLUMN IF EXISTS vendor_score;
-- provider_scores is created from its model file (warehouse/models/raw/provider_scores.sql) first.
INSERT INTO provider_scores
SELECT 'vast', 'dlperf', 'vast_dlperf', 'vast score', 'vast.ai''s own DLPerf per GPU for the card',
       'a formula over the machine''s specs', 'vastai'
WHERE EXISTS (SELECT 1 FROM rental_offers WHERE provider = 'vast' AND extras IS NOT NULL)
ON CONFLICT DO NOTHING;
