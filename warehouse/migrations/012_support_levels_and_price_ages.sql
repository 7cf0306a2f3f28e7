-- Schema version 12: framework support as a level (gpus.framework_support, staging/gpus.sql), and the
-- price's age and comparability in the ranking (ranking_daily's framework_support, passive,
-- price_source, price_age_days and price_tier, marts/ranking_daily.sql).
ALTER TABLE gpus ADD COLUMN IF NOT EXISTS framework_support VARCHAR;
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS framework_support VARCHAR;
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS passive BOOLEAN;
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS price_source VARCHAR;
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS price_age_days INTEGER;
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS price_tier VARCHAR;

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
