"""A large gap between the used-price index and the own sold prices of the same month is a run alarm."""

from __future__ import annotations

from datetime import date, datetime

from gpuvalue.flows.run_report import price_index_alarm_lines
from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.price_index import load_price_index


def _point(month: date, usd: float) -> PriceIndexPoint:
    return PriceIndexPoint(source="tomshardware-ebay-index", gpu_name="GeForce RTX 3090", model="GeForce RTX 3090",
                           match_reason="exact", month=month, avg_sold_usd=usd, quantity_sold=100,
                           published=month, table="gpu_time_series.csv")


def test_a_gap_above_a_quarter_is_an_alarm_line(tmp_path):
    con = open_database(tmp_path / "g.duckdb")
    try:
        load_price_index(con, [_point(date(2023, 10, 1), 700.0)], datetime(2026, 11, 30))
        con.execute("""
            INSERT INTO price_observations (source, listing_id, model, kind, obs_date, usd)
            SELECT 'ebay-html', 'l' || i, 'GeForce RTX 3090', 'sold', DATE '2023-10-10', 1000.0
            FROM range(5) AS t(i)""")
        lines = price_index_alarm_lines(con)
    finally:
        con.close()
    assert len(lines) == 1 and lines[0].startswith("GeForce RTX 3090: own sold median $1,000 (5 sales) in 2023-10")
    assert "+43%" in lines[0] and "tomshardware-ebay-index" in lines[0]


def test_no_own_sales_no_alarm(tmp_path):
    con = open_database(tmp_path / "g.duckdb")
    try:
        load_price_index(con, [_point(date(2023, 10, 1), 700.0)], datetime(2026, 11, 30))
        assert price_index_alarm_lines(con) == []
    finally:
        con.close()
