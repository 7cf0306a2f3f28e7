SELECT count(*) FROM (SELECT as_of FROM ranking_daily GROUP BY as_of HAVING max(rank) <> count(*));
