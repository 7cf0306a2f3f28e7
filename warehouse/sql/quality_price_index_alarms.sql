-- Model-months where a published index of sold prices and the pipeline's own sold prices disagree by more
-- than $max_rel_diff (0.25: 25 %) either way, with at least $min_own own sales behind the median:
-- the matcher may be pulling in other cards, junk may be getting through, or the index's name may
-- mean another variant. Biggest disagreement first.
SELECT source, gpu_name, model, month, index_avg_usd, index_quantity, own_n, own_median_usd, own_avg_usd,
       round(rel_diff, 4) AS rel_diff
FROM price_index_vs_own
WHERE abs(rel_diff) > $max_rel_diff AND own_n >= $min_own AND own_kind = 'sold'
ORDER BY abs(rel_diff) DESC, model, month, source;
