SELECT count(*) FROM (SELECT as_of, model FROM ranking_daily GROUP BY ALL HAVING count(*) > 1);
