-- One day's ranking with the user's filters; every filter is a bound parameter and NULL means "any".
-- price_source_label: the short name of the source of an index price, as the outputs show it.
SELECT *
FROM ranking_labelled
WHERE as_of = coalesce($as_of, (SELECT max(as_of) FROM ranking_daily))
  AND ($min_memory IS NULL OR memory_gb >= $min_memory)
  AND ($max_price IS NULL OR price_usd <= $max_price)
  AND ($vendor IS NULL OR lower(vendor) = lower($vendor))
  AND ($segment IS NULL OR lower(segment) = lower($segment))
  AND (NOT $supported_only OR coalesce(framework_supported, false))
  AND (NOT $desktop_only OR coalesce(desktop_usable, true))
ORDER BY rank
LIMIT coalesce($top, 1000000);
