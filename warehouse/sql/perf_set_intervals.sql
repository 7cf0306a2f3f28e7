-- incoming_intervals (model, precision, source, perf_low, perf_high): every figure's 80 % interval,
-- written after the weighted figures (warehouse/perf_weighted.py); they replace all the stored ones.
DELETE FROM perf_interval;
INSERT INTO perf_interval BY NAME
SELECT model, precision, source, perf_low, perf_high FROM incoming_intervals;
