-- How old each source's data is, for the exports' sources list: one statement per table a source
-- fills, each giving (source, when its data was fetched, the date the data is of). The date is the
-- data's own, never the day a run was made for; sources_from_db keeps the newest of each.

-- An asking listing is as new as the last time it was seen; a sold one as its sale, however much later
-- it was seen or imported (a CSV of 2020's sales imported today holds 2020's prices).
SELECT source, max(last_seen), CAST(max(coalesce(sold_at, last_seen)) AS DATE)
FROM listings GROUP BY source;

SELECT source, max(fetched_at), CAST(max(fetched_at) AS DATE) FROM gpu_specs GROUP BY source;

-- Exchange rates and a price index carry no fetch time, only the date they are of.
SELECT source, NULL, max(rate_date) FROM fx_rates GROUP BY source;

-- Offers carry their load time, not a fetch time: a rental source's fetch is its last live run's.
SELECT source, NULL, max(as_of) FROM rental_offers GROUP BY source;

SELECT source, NULL, max(month) FROM price_index_monthly GROUP BY source;
