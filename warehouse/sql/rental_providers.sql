-- Every provider with a stored offer: `gpuvalue rent` refuses a --provider outside it (naming the
-- known ones), and says there are no rental prices yet when it is empty.
SELECT DISTINCT provider FROM rental_offers ORDER BY 1;
