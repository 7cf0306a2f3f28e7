-- Each card's performance per dollar and place on every ranked day.
CREATE OR REPLACE VIEW perf_per_dollar_history AS
    SELECT as_of, model, perf_per_dollar, rank FROM ranking_daily;
