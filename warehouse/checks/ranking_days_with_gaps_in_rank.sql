-- A day's ranks must be 1..n, each once: a gap or a repeated rank (two cards at #1) misstates places.
SELECT count(*) FROM (SELECT as_of FROM ranking_daily GROUP BY as_of
                      HAVING max(rank) <> count(*) OR count(DISTINCT rank) <> count(*) OR min(rank) <> 1);
