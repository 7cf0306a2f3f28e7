-- One day's ranking as the Parquet download has it: the CSV's columns in their order, then the
-- JSON rows' extra fields. The same list as export.RANKING_JSON_FIELDS, which the CSV and JSON
-- writers read (tests/warehouse/test_export.py holds the Parquet file's columns to it).
SELECT rank, model, vendor, architecture, segment, memory_gb, bandwidth_gb_s,
       price_usd, price_kind, price_n, price_q1, price_q3, price_as_of, stale,
       relative_perf, perf_source, perf_per_dollar, framework_supported, desktop_usable, reference_gpu, as_of,
       -- Since schema 1.1.
       framework_support, passive, price_source, price_age_days, price_tier,
       -- Since schema 1.2.
       perf_low, perf_high,
       -- JSON only (export.RANKING_JSON_FIELDS).
       perf_method, perf_precision, tdp_w
FROM ranking_daily
WHERE as_of = ?
ORDER BY rank, model;
