SELECT DISTINCT as_of FROM ranking_daily ORDER BY as_of;
