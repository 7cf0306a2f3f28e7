-- The newest ranked day: what an export, the feed's replay flag or the report is of when no day is named.
SELECT max(as_of) FROM ranking_daily;
