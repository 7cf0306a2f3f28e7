-- The ranking of each day (built below): every card with a price and a performance figure, by
-- performance per dollar.
--   framework_support  the catalog's support level that day (gpus.framework_support);
--   passive            a PCIe server card without a fan: it fits a desktop slot but needs a fan kit;
--   price_source       the published index that priced the card (price_kind 'index'), NULL for own prices;
--   price_age_days     as_of - price_as_of (an index price is dated the first day of its month);
--   price_tier         'recent': priced within the comparable window of the day's newest price, ranked
--                      first; 'older': ranked after them, compared with each other only.
CREATE TABLE IF NOT EXISTS ranking_daily (
    as_of               DATE NOT NULL,
    rank                INTEGER NOT NULL,
    model               VARCHAR NOT NULL,
    vendor              VARCHAR,
    architecture        VARCHAR,
    segment             VARCHAR,
    memory_gb           DOUBLE,
    bandwidth_gb_s      DOUBLE,
    relative_perf       DOUBLE NOT NULL,
    perf_source         VARCHAR NOT NULL,
    perf_method         VARCHAR,
    perf_precision      VARCHAR NOT NULL,
    reference_gpu       VARCHAR NOT NULL,
    price_usd           DOUBLE NOT NULL,
    price_kind          VARCHAR NOT NULL,
    price_n             INTEGER NOT NULL,
    price_q1            DOUBLE,
    price_q3            DOUBLE,
    price_as_of         DATE NOT NULL,
    perf_per_dollar     DOUBLE NOT NULL,       -- relative_perf per 1000 USD
    framework_supported BOOLEAN,
    desktop_usable      BOOLEAN,
    stale               BOOLEAN NOT NULL,      -- price older than the price window
    tdp_w               INTEGER,
    framework_support   VARCHAR,
    passive             BOOLEAN,
    price_source        VARCHAR,
    price_age_days      INTEGER,
    price_tier          VARCHAR,
    perf_low            DOUBLE,                -- the 80 % interval of relative_perf, on its scale (schema 19)
    perf_high           DOUBLE,
    PRIMARY KEY (as_of, model)
);

-- Its build, run by sql_files.build(con, "ranking_daily", params): the statements below the CREATE.
-- The performance-per-dollar ranking of every as_of date from $start to $end ($precision,
-- $reference, $window_days, $comparable_days): the daily step runs it for one day, a backfill for
-- a range. Performance comes from perf_best (measured beats estimated), rescaled so the reference
-- card is 1.0. Every released model with a price and a performance is ranked; a price older than
-- the window is kept but flagged stale.
--
-- Prices: the own price of the day (prices_daily: sold or asking), else, for a card the own
-- observations cannot price, the newest complete month of a published index (price_index_monthly,
-- as price_index_latest chooses it: most sales, then source and name), kind 'index', dated the
-- first day of its month, price_n its quantity sold, price_source the index. Never both, never mixed.
-- The freshest evidence wins: an own price older than the index's month (dated before its first day)
-- gives way to it, so a card whose own listings end in 2025 is priced by a 2026 month, and one whose own
-- sales are years old (an opt-in archive's) by the newer published month; an own price of the index's
-- month or later keeps the card.
--
-- Comparable dates: a card priced within $comparable_days of the day's newest price is 'recent';
-- the others are 'older' and rank after every recent card, ordered among themselves. So a price
-- from two years ago is never placed between today's prices, and each row says how old its price is
-- (price_age_days). Ties are broken by model name, so the order is deterministic.
DELETE FROM ranking_daily WHERE as_of BETWEEN $start AND $end;

INSERT INTO ranking_daily BY NAME
WITH best_perf AS (
    SELECT * FROM perf_best WHERE precision = $precision
),
ref AS (
    SELECT relative_perf AS ref_perf FROM best_perf WHERE model = $reference
),
own AS (
    SELECT as_of, model, price_usd, price_kind, price_n, price_q1, price_q3, price_as_of,
           CAST(NULL AS VARCHAR) AS price_source
    FROM prices_daily
    WHERE as_of BETWEEN $start AND $end AND price_usd > 0
),
days AS (
    SELECT CAST(d AS DATE) AS as_of
    FROM generate_series(CAST($start AS TIMESTAMP), CAST($end AS TIMESTAMP), INTERVAL 1 DAY) AS t(d)
),
index_newest AS (
    SELECT d.as_of, i.model, i.avg_sold_usd AS price_usd, 'index' AS price_kind,
           coalesce(i.quantity_sold, i.prices_averaged, 0) AS price_n, CAST(NULL AS DOUBLE) AS price_q1, CAST(NULL AS DOUBLE) AS price_q3,
           i.month AS price_as_of, i.source AS price_source
    FROM days AS d
    JOIN price_index_monthly AS i
      ON i.model IS NOT NULL AND i.avg_sold_usd > 0 AND i.month + INTERVAL 1 MONTH <= d.as_of
    QUALIFY row_number() OVER (
        PARTITION BY d.as_of, i.model ORDER BY i.month DESC, i.quantity_sold DESC NULLS LAST, i.source, i.gpu_name
    ) = 1
),
own_kept AS (
    SELECT * FROM own AS o
    WHERE NOT EXISTS (SELECT 1 FROM index_newest AS x
                      WHERE x.as_of = o.as_of AND x.model = o.model AND o.price_as_of < x.price_as_of)
),
from_index AS (
    SELECT * FROM index_newest AS x
    WHERE NOT EXISTS (SELECT 1 FROM own_kept AS o WHERE o.as_of = x.as_of AND o.model = x.model)
),
priced AS (
    SELECT * FROM own_kept
    UNION ALL
    SELECT * FROM from_index
),
joined AS (
    SELECT p.as_of, g.model, g.vendor, g.architecture, g.segment, g.memory_gb, g.bandwidth_gb_s,
           bp.relative_perf / coalesce((SELECT ref_perf FROM ref), 1.0) AS relative_perf,
           bp.perf_low / coalesce((SELECT ref_perf FROM ref), 1.0) AS perf_low,
           bp.perf_high / coalesce((SELECT ref_perf FROM ref), 1.0) AS perf_high,
           bp.source AS perf_source, bp.method AS perf_method, bp.precision AS perf_precision,
           $reference AS reference_gpu,
           p.price_usd, p.price_kind, p.price_n, p.price_q1, p.price_q3, p.price_as_of, p.price_source,
           g.framework_supported, g.framework_support, g.desktop_usable, g.tdp_w,
           coalesce(g.form_factor = 'PCIe passive', false) AS passive,
           p.price_as_of <= p.as_of - $window_days AS stale,
           CAST(p.as_of - p.price_as_of AS INTEGER) AS price_age_days
    FROM priced AS p
    JOIN gpus AS g USING (model)
    JOIN best_perf AS bp ON bp.model = p.model
    WHERE coalesce(g.released, true)
),
tiered AS (
    SELECT *,
           CASE WHEN price_as_of >= max(price_as_of) OVER (PARTITION BY as_of) - $comparable_days
                THEN 'recent' ELSE 'older' END AS price_tier
    FROM joined
)
SELECT *, round(relative_perf / price_usd * 1000, 4) AS perf_per_dollar,
       CAST(row_number() OVER (
           PARTITION BY as_of ORDER BY price_tier = 'older', relative_perf / price_usd DESC, model
       ) AS INTEGER) AS rank
FROM tiered;
