-- The reference GPUs one day's ranking is relative to: the exports name the reference, so a day that
-- mixes them (a partial rebuild with another reference) must be exported with one named explicitly.
SELECT DISTINCT reference_gpu FROM ranking_daily WHERE as_of = ? ORDER BY 1;
