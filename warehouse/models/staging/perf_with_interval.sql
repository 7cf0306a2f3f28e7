-- Every performance figure with its interval, where it has one (perf_interval).
CREATE OR REPLACE VIEW perf_with_interval AS
SELECT p.*, i.perf_low, i.perf_high
FROM perf AS p
LEFT JOIN perf_interval AS i USING (model, precision, source);
