"""The daily price rule stated directly on the raw tables (listings and snapshots), every candidate
window judged: the reference the materialized path (price_observations, warehouse/models/marts/prices_daily.sql) and the
backfill are held to."""

# As the daily price was computed before the observations were materialized: straight from
# listings and snapshots, every listing deduplicated per window, every candidate window judged
# (the trailing one and one ending on each observation day before it).
PRICES_FROM_RAW_TABLES = """
WITH obs AS (
    SELECT source, listing_id, model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date, total_usd AS usd
    FROM listings
    WHERE sold AND model IS NOT NULL AND total_usd > 0 AND coalesce(quantity, 1) = 1
      AND condition_class IN ('used', 'refurbished', 'open_box') AND sold_at IS NOT NULL
      AND sold_at < CAST($as_of AS DATE) + INTERVAL 1 DAY
    UNION ALL
    SELECT s.source, s.listing_id, l.model, 'asking', s.seen_date, s.total_usd
    FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
    WHERE NOT l.sold AND l.model IS NOT NULL AND s.total_usd > 0 AND coalesce(l.quantity, 1) = 1
      AND l.condition_class IN ('used', 'refurbished', 'open_box')
      AND coalesce(l.buying_option, '') NOT LIKE '%AUCTION%' AND s.seen_date <= $as_of
),
anchors AS (
    SELECT DISTINCT model, kind, CAST($as_of AS DATE) AS anchor FROM obs WHERE obs_date > CAST($as_of AS DATE) - $w
    UNION
    SELECT DISTINCT model, kind, obs_date FROM obs WHERE obs_date <= CAST($as_of AS DATE) - $w
),
in_window AS (
    SELECT o.*, a.anchor, ln(o.usd) AS lp FROM obs AS o JOIN anchors AS a USING (model, kind)
    WHERE o.obs_date <= a.anchor AND o.obs_date > a.anchor - $w
    QUALIFY row_number() OVER (PARTITION BY o.model, o.kind, a.anchor, o.source, o.listing_id ORDER BY o.obs_date DESC) = 1
),
centre AS (SELECT model, kind, anchor, median(lp) AS med FROM in_window GROUP BY ALL),
spread AS (
    SELECT w.model, w.kind, w.anchor, c.med, greatest(3 * 1.4826 * median(abs(w.lp - c.med)), ln(1.5)) AS tol
    FROM in_window AS w JOIN centre AS c USING (model, kind, anchor) GROUP BY ALL
),
kept AS (SELECT w.* FROM in_window AS w JOIN spread AS s USING (model, kind, anchor) WHERE abs(w.lp - s.med) <= s.tol),
counted AS (
    SELECT model, kind, anchor, count(*) AS n, median(usd) AS med_usd, quantile_cont(usd, 0.25) AS q1,
           quantile_cont(usd, 0.75) AS q3, max(obs_date) AS price_as_of
    FROM kept GROUP BY model, kind, anchor HAVING count(*) >= $min_count
),
newest AS (SELECT * FROM counted QUALIFY row_number() OVER (PARTITION BY model, kind ORDER BY anchor DESC) = 1),
-- Fresh before stale; among stale prices, those within $comparable days of the model's newest stale one
-- before the rest (so the newer wins unless the two are that close); then sold before asking.
judged AS (
    SELECT *, price_as_of > CAST($as_of AS DATE) - $w AS fresh,
           max(price_as_of) FILTER (WHERE price_as_of <= CAST($as_of AS DATE) - $w) OVER (PARTITION BY model) AS newest_stale
    FROM newest
)
SELECT model, round(CASE WHEN kind = 'sold' THEN med_usd ELSE q1 END, 2), kind, n, round(q1, 2), round(q3, 2), price_as_of
FROM judged
QUALIFY row_number() OVER (PARTITION BY model ORDER BY fresh DESC, (fresh OR price_as_of >= newest_stale - $comparable) DESC,
                           (kind = 'sold') DESC, price_as_of DESC) = 1
ORDER BY model
"""
MATERIALIZED = ("SELECT model, price_usd, price_kind, price_n, price_q1, price_q3, price_as_of FROM prices_daily "
                "WHERE as_of = ? ORDER BY model")
