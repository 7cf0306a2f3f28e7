-- Each model's used-market price on each ranked day (sql/prices_daily.sql): the median of one
-- window's sold observations, else of its asking ones, else the launch price, with count, quartiles
-- and the date of the newest observation behind it.
CREATE TABLE IF NOT EXISTS prices_daily (
    as_of        DATE NOT NULL,
    model        VARCHAR NOT NULL,
    price_usd    DOUBLE NOT NULL,
    price_kind   VARCHAR NOT NULL,             -- sold|asking|launch
    price_n      INTEGER NOT NULL,
    price_q1     DOUBLE,
    price_q3     DOUBLE,
    price_as_of  DATE NOT NULL,                -- newest observation behind the price
    window_days  INTEGER NOT NULL,
    method       VARCHAR NOT NULL,
    PRIMARY KEY (as_of, model)
);
