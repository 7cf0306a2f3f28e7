-- Schema version 25: an index of asking prices beside the indexes of sold prices. A monthly market
-- report's best deal is the mean of a month's few cheapest listings: price_index_monthly.prices_averaged
-- says how many (NULL for an index of sales), and sources.statistic names what a source's index figure
-- is ("mean of the {n} cheapest asking prices"), which ranking_labelled carries as price_source_statistic. price_index_vs_own compares an index of
-- asking prices with the own asking prices (own_kind); the alarms stay on indexes of sold prices.
ALTER TABLE price_index_monthly ADD COLUMN IF NOT EXISTS prices_averaged INTEGER;
ALTER TABLE sources ADD COLUMN IF NOT EXISTS statistic VARCHAR;
-- Which published file each row was read from (a report's page, an index's table), kept with the row.
ALTER TABLE price_index_monthly ADD COLUMN IF NOT EXISTS read_from VARCHAR;
