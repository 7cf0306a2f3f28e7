-- incoming_intervals (model, precision, source, perf_low, perf_high): each figure's 80 % interval,
-- written after the weighted figures (warehouse/perf_weighted.py); figures it does not name keep none.
UPDATE perf SET perf_low = NULL, perf_high = NULL;
UPDATE perf AS p SET perf_low = i.perf_low, perf_high = i.perf_high
FROM incoming_intervals AS i
WHERE p.model = i.model AND p.precision = i.precision AND p.source = i.source;
