-- Schema version 21: what a marketplace host states about its own offer, beside the price. vast.ai
-- lists every machine as its own offer, with the host's reliability (a fraction), whether vast.ai
-- verified the host, and vast.ai's own speed score for the machine (DLPerf, a formula over its
-- specs); RunPod and the catalogs state none of them (NULL). `gpuvalue rent --min-reliability R
-- --verified` filters on the first two; the score is shown beside gpuvalue's own figure for the
-- card, never used as a measurement.
ALTER TABLE rental_offers ADD COLUMN IF NOT EXISTS reliability DOUBLE;
ALTER TABLE rental_offers ADD COLUMN IF NOT EXISTS verified BOOLEAN;
ALTER TABLE rental_offers ADD COLUMN IF NOT EXISTS vendor_score DOUBLE;
