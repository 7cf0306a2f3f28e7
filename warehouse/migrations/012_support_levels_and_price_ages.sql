-- Schema version 12: framework support as a level, and the price's age and comparability in the ranking.
--
-- gpus.framework_support: 'current' (a default or stable wheel of the newest PyTorch release runs the
-- card), 'legacy' (only the legacy CUDA 12.6 wheels do), 'none', or NULL (the catalog cannot tell);
-- see models/support_tables.py. framework_supported stays, derived (current -> true), for one release.
ALTER TABLE gpus ADD COLUMN framework_support VARCHAR;

-- ranking_daily gains, per ranked card:
--   framework_support  the level above, as the catalog had it that day;
--   passive            a PCIe server card without a fan: it fits a desktop slot but needs a fan kit;
--   price_source       the published index that priced the card (price_kind 'index'), NULL for own prices;
--   price_age_days     as_of - price_as_of (an index price is dated the first day of its month);
--   price_tier         'recent': priced within the comparable window of the day's newest price, ranked
--                      first; 'older': ranked after them, compared with each other only.
ALTER TABLE ranking_daily ADD COLUMN framework_support VARCHAR;
ALTER TABLE ranking_daily ADD COLUMN passive BOOLEAN;
ALTER TABLE ranking_daily ADD COLUMN price_source VARCHAR;
ALTER TABLE ranking_daily ADD COLUMN price_age_days INTEGER;
ALTER TABLE ranking_daily ADD COLUMN price_tier VARCHAR;

-- Rows written before this version: the level from the same tables (NVIDIA by compute capability: 7.5 and
-- newer current, 5.0 to 7.2 legacy; others from the former flag, which had no legacy level for them), the
-- price's age from its dates; their order was not tiered, so every such row counts as 'recent'.
UPDATE gpus SET framework_support = CASE
    WHEN vendor = 'NVIDIA' AND TRY_CAST(split_part(compute_capability, '.', 1) AS INTEGER) IS NOT NULL THEN
        CASE WHEN TRY_CAST(split_part(compute_capability, '.', 1) AS INTEGER) * 10
                  + TRY_CAST(split_part(compute_capability, '.', 2) AS INTEGER) >= 75 THEN 'current'
             WHEN TRY_CAST(split_part(compute_capability, '.', 1) AS INTEGER) >= 5 THEN 'legacy'
             ELSE 'none' END
    WHEN framework_supported THEN 'current'
    WHEN framework_supported = false THEN 'none'
END;
UPDATE gpus SET framework_supported = (framework_support = 'current') WHERE framework_support IS NOT NULL;

UPDATE ranking_daily AS r SET framework_support = g.framework_support, passive = (g.form_factor = 'PCIe passive')
FROM gpus AS g WHERE g.model = r.model;
UPDATE ranking_daily SET price_age_days = CAST(as_of - price_as_of AS INTEGER), price_tier = 'recent';

-- A view over ranking_daily.* keeps the columns it was created with (DuckDB 1.4 clients refuse it once the
-- table has more): created again, it shows the new ones.
CREATE OR REPLACE VIEW ranking_latest AS
    SELECT * FROM ranking_daily WHERE as_of = (SELECT max(as_of) FROM ranking_daily);
