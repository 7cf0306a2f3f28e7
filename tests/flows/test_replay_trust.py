"""On the replay, the default ranking is one a buyer can trust at first sight: the cards people ask about,
usable ones only, prices of comparable dates ranked together, index prices named as such (the issue's
done-when). Reads the session's replay database (conftest.replay_db)."""

from __future__ import annotations

import json
import re
from datetime import date

import duckdb
import pytest
from conftest import REPO
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

pytestmark = pytest.mark.e2e

runner = CliRunner()

ASKED_ABOUT = ("GeForce RTX 3090", "GeForce RTX 3080", "GeForce RTX 3070", "GeForce RTX 3060 12 GB",
               "GeForce RTX 2080 Ti", "GeForce RTX 4060 Ti 16 GB", "GeForce RTX 4090")


@pytest.fixture(scope="module")
def shown(replay_db) -> list[dict]:
    res = runner.invoke(app, ["rank", "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_rank_shows_at_least_45_usable_cards_including_the_ones_people_ask_about(shown):
    names = [r["model"] for r in shown]
    assert len(shown) >= 45, len(shown)
    for model in ASKED_ABOUT:
        assert model in names, model
    assert all(r["memory_gb"] >= 6 for r in shown)
    assert all(r["framework_support"] == "current" and r["framework_supported"] is True for r in shown)
    assert not any(r["passive"] or r["desktop_usable"] is False for r in shown)
    assert [r["rank_shown"] for r in shown] == list(range(1, len(shown) + 1))


def test_cards_without_own_listings_carry_a_labelled_index_price_with_its_month(replay_db, shown):
    by = {r["model"]: r for r in shown}
    # No recorded eBay search finds these: an index prices them, the 2026 market reports where they name
    # the card, else Tom's Hardware's index of 2023-10.
    expected = {"GeForce RTX 3090": ("gpupoet-market-reports", "2026-09-01"),
                "GeForce RTX 3080": ("gpupoet-market-reports", "2026-07-01"),
                "GeForce RTX 3070": ("gpupoet-market-reports", "2026-07-01"),
                "GeForce RTX 3060 12 GB": ("tomshardware-ebay-index", "2023-10-01"),
                "GeForce RTX 2080 Ti": ("tomshardware-ebay-index", "2023-10-01"),
                "GeForce RTX 4060 Ti 16 GB": ("tomshardware-ebay-index", "2023-10-01")}
    for model in ASKED_ABOUT[:6]:
        r = by[model]
        assert (r["price_kind"], r["price_source"], r["price_as_of"]) == ("index", *expected[model]), model
        assert r["price_q1"] is None and r["price_n"] > 0
    assert (by["GeForce RTX 3090"]["price_usd"], by["GeForce RTX 3090"]["price_n"]) == (1207.0, 3)  # September's best deal
    assert by["GeForce RTX 3060 12 GB"]["price_n"] == 560  # the index's October 2023 average, 560 sold
    # the freshest evidence wins: the RTX 4090's own asking price of 2023-12 gives way to its report of 2026-04
    assert (by["GeForce RTX 4090"]["price_source"], by["GeForce RTX 4090"]["price_as_of"]) == (
        "gpupoet-market-reports", "2026-04-01")
    assert by["GeForce RTX 4070"]["price_kind"] == "asking"  # an own price no index month is newer than
    con = duckdb.connect(str(replay_db), read_only=True)
    try:  # never an own price
        assert con.execute("SELECT count(*) FROM prices_daily WHERE model = 'GeForce RTX 3090'").fetchone() == (0,)
    finally:
        con.close()
    table = runner.invoke(app, ["rank", "--db", str(replay_db)], terminal_width=250)
    assert table.exit_code == 0, table.output
    said = " ".join(table.stdout.split())
    assert "2023-10 (month)" in said and "2026-09 (month)" in said
    assert "index: no own listing of a comparable date prices the card" in said
    # each index by its source's declared label, with what its figure is
    assert "GPU Poet market report: mean of the 3 cheapest asking prices" in said
    assert "Tom's Hardware eBay index: monthly average of sold cards" in said


def test_recent_prices_come_first_and_older_ones_are_listed_apart_with_their_age(replay_db, shown):
    tiers = [r["price_tier"] for r in shown]
    recent = tiers.count("recent")
    assert 0 < recent < len(shown) and tiers == ["recent"] * recent + ["older"] * (len(shown) - recent)
    newest = max(date.fromisoformat(r["price_as_of"]) for r in shown)
    assert newest == date(2026, 9, 1)  # the newest report month, more than two months before the run date
    assert all((newest - date.fromisoformat(r["price_as_of"])).days <= 90 for r in shown if r["price_tier"] == "recent")
    assert all(r["price_age_days"] == (date(2026, 11, 30) - date.fromisoformat(r["price_as_of"])).days for r in shown)
    table = runner.invoke(app, ["rank", "--db", str(replay_db)], terminal_width=250).stdout
    assert "Priced within 90 days of the newest price (2026-07-01 to 2026-09-01)" in table
    assert "Older prices (2023-10-01 to 2026-06-01)" in table and "3 y 2 mo" in table
    # Filters that leave only older prices still say what they are.
    cheap = runner.invoke(app, ["rank", "--db", str(replay_db), "--max-price", "150"], terminal_width=250).stdout
    assert "Priced within" not in cheap and "Older prices (all on 2023-10-01)" in cheap
    assert "Older prices rank after every recently priced card" in cheap


def test_the_replay_searches_by_rule_and_says_once_what_was_never_recorded(replay_db):
    res = runner.invoke(app, ["coverage", "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    covered = [json.loads(line) for line in res.stdout.splitlines()]
    searches = {r["query"] for r in covered}
    assert 150 <= len(covered) <= 250 and len(searches) < len(covered)  # printed and checked; see README
    assert "NVIDIA GeForce RTX 3090" in searches
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        status, error = con.execute("SELECT status, error FROM runs WHERE source = 'ebay-browse'").fetchone()
    finally:
        con.close()
    assert status == "ok"
    found = re.findall(r"ebay-browse: (\d+) of (\d+) searches have no recording", error)
    # The rule's searches, then the archive's own recorded searches that the rule words differently.
    from gpuvalue.scrapers.sources.ebay_browse import DEFAULT_EBAY_QUERIES

    made = len(searches) + len(set(DEFAULT_EBAY_QUERIES) - set(searches))
    assert len(found) == 1 and int(found[0][1]) == made and int(found[0][1]) - int(found[0][0]) == len(DEFAULT_EBAY_QUERIES)


def test_the_readme_rtx_3090_queries_return_rows(replay_db):
    text = (REPO / "docs" / "schema.md").read_text(encoding="utf-8").split("## Six useful queries", 1)[1]
    block = re.search(r"```sql\n(.*?)```", text, re.S).group(1)
    queries = [q.strip() for q in block.split(";") if re.sub(r"--[^\n]*", "", q).strip()]
    about_3090 = [q for q in queries if "RTX 3090" in q or "3090" in q]
    assert len(about_3090) >= 2
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        for query in queries:
            assert con.execute(query).fetchall(), query
    finally:
        con.close()


def test_every_source_the_replays_exports_name_says_what_it_is_and_its_terms(replay_db):
    """No export credits a source as "Data source: <name>" with an unknown licence: each number's
    source is one a reader can look up (a perf figure several harnesses measured is 'combined')."""
    exported = json.loads((replay_db.parent / "exports" / "ranking.json").read_text(encoding="utf-8"))
    undescribed = [s["name"] for s in exported["sources"]
                   if s["attribution"].startswith("Data source:") or s["licence"] == "unknown"]
    assert undescribed == []
    assert "combined" in {s["name"] for s in exported["sources"]}


def test_a_replay_says_no_source_was_fetched_on_the_run_day(replay_db):
    """A replay fetches nothing: a source's fetched_at is the capture time its recording carries, or
    none; never the time of the run, nor for the figures gpuvalue computes (estimate, combined)."""
    from gpuvalue.scrapers import registry

    exported = json.loads((replay_db.parent / "exports" / "ranking.json").read_text(encoding="utf-8"))
    registered = set(registry.all_sources())
    wrong = {s["name"]: s["fetched_at"] for s in exported["sources"]
             if s["name"] in registered and s["fetched_at"] is not None and s["fetched_at"][:10] != s["as_of"]}
    assert wrong == {}
    computed = {s["name"]: s["fetched_at"] for s in exported["sources"] if s["name"] in ("estimate", "combined")}
    assert computed == {"estimate": None, "combined": None}


def test_a_source_the_replay_did_not_hold_is_not_credited(replay_db):
    exported = json.loads((replay_db.parent / "exports" / "ranking.json").read_text(encoding="utf-8"))
    not_recorded = {s["name"] for s in exported["sources"] if s["status"] == "not recorded"}
    assert not_recorded == {"ebay-html"}
    # r/CanadianHardwareSwap is recorded: its posts are credited. One that gave no data would not be
    # (ebay-html shares its credit with ebay-browse, which gave data, so it cannot show that here).
    assert any("r/hardwareswap" in line for line in exported["attribution"])
    from gpuvalue.warehouse.source_dates import attribution_lines

    silent = {"name": "gpumart", "status": "not recorded", "as_of": None, "fetched_at": None,
              "attribution": "Used-market prices: gpumart.example listings"}
    assert not any("gpumart" in line for line in attribution_lines([silent]))
    assert any("TechPowerUp" in line for line in exported["attribution"])  # the base credits stay
