-- Schema version 19: every figure carries its 80 % interval, and a card's shown figure weighs all its
-- evidence (docs/performance.md, "Precision-weighted figures"). The table perf_interval comes from its
-- model file (staging/perf_interval.sql); the ranking keeps the bounds beside relative_perf.
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS perf_low DOUBLE;
ALTER TABLE ranking_daily ADD COLUMN IF NOT EXISTS perf_high DOUBLE;
