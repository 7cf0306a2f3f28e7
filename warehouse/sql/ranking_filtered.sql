-- One day's ranking with the user's filters; every filter is a bound parameter and NULL means "any".
-- price_source_label: the short name of the source of an index price, as the outputs show it.
SELECT r.*, s.label AS price_source_label
FROM ranking_daily AS r
LEFT JOIN sources AS s ON s.name = r.price_source
WHERE r.as_of = coalesce($as_of, (SELECT max(as_of) FROM ranking_daily))
  AND ($min_memory IS NULL OR r.memory_gb >= $min_memory)
  AND ($max_price IS NULL OR r.price_usd <= $max_price)
  AND ($vendor IS NULL OR lower(r.vendor) = lower($vendor))
  AND ($segment IS NULL OR lower(r.segment) = lower($segment))
  AND (NOT $supported_only OR coalesce(r.framework_supported, false))
  AND (NOT $desktop_only OR coalesce(r.desktop_usable, true))
ORDER BY r.rank
LIMIT coalesce($top, 1000000);
