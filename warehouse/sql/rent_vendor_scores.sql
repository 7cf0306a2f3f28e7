-- Each card's own score at a provider that publishes one ($provider, its offers' extras under $extra:
-- a score its rental source declares in provider_scores, such as a formula over the machine's specs,
-- never a measurement): per model, the median score per GPU over the offers of that provider's newest
-- capture that scores the model, with its date and how many offers it is the median of, and the same
-- median relative to the provider's median for the ranking's reference card (NULL where the provider
-- scores no such card), so it reads beside gpuvalue's own relative figure.
WITH offers AS (
    SELECT provider, model, as_of, gpu_count, TRY_CAST(json_extract_string(extras, $extra) AS DOUBLE) AS score
    FROM rental_offers
    WHERE provider = $provider AND extras IS NOT NULL AND model IS NOT NULL
),
scored AS (
    SELECT provider, model, as_of, score / gpu_count AS per_gpu,
           max(as_of) OVER (PARTITION BY provider, model) AS newest
    FROM offers
    WHERE score IS NOT NULL AND score > 0
),
medians AS (
    SELECT provider, model, any_value(as_of) AS score_as_of, median(per_gpu) AS score, count(*) AS score_offers
    FROM scored WHERE as_of = newest
    GROUP BY provider, model
)
SELECT m.provider, m.model, m.score_as_of, m.score, m.score_offers,
       m.score / r.score AS score_relative
FROM medians AS m
LEFT JOIN medians AS r
  ON r.provider = m.provider
 AND r.model = coalesce((SELECT any_value(reference_gpu) FROM rent_perf), 'GeForce RTX 3090')
ORDER BY m.provider, m.model;
