-- The cards ranked on one day: an export of a day without a ranking is an error, not an empty
-- file, and a materialized day reports how many it ranked.
SELECT count(*) FROM ranking_daily WHERE as_of = ?;
