-- The ranking as the outputs read it, each row with the short name the source of its price declares
-- (sources.label; NULL where it declares none) and the statistic its index prices are (sources.statistic): one definition of the join for `rank` and
-- `recommend`, the report and the feed.
CREATE OR REPLACE VIEW ranking_labelled AS
SELECT r.*, s.label AS price_source_label, s.statistic AS price_source_statistic
FROM ranking_daily AS r
LEFT JOIN sources AS s ON s.name = r.price_source;
