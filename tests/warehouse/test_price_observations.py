"""price_observations: kept by the load path, equal to deriving prices from the whole history.

The daily price reads a materialized, date-ordered table instead of every listing and snapshot.
These tests hold that shortcut to the rule it replaces: the table equals its defining view after
any sequence of loads, and the day's prices equal those computed from the raw tables directly.
"""

from __future__ import annotations

import shutil
from datetime import date, datetime, timedelta

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from conftest_exports import warehouse_at_version
from price_rule_reference import MATERIALIZED, PRICES_FROM_RAW_TABLES
from test_backfill import END, MIN_COUNT, REF, START, WINDOW, _crafted_history

runner = CliRunner()

TABLE = "SELECT source, listing_id, model, kind, obs_date, next_date, usd FROM price_observations ORDER BY ALL"
VIEW = "SELECT source, listing_id, model, kind, obs_date, next_date, usd FROM stg_price_observations ORDER BY ALL"
DAYS = "SELECT model, kind, obs_date, n FROM price_observation_days ORDER BY ALL"
RECOUNT = "SELECT model, kind, obs_date, count(*) FROM stg_price_observations GROUP BY ALL ORDER BY ALL"


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    c.execute(
        "INSERT INTO gpus (model, vendor, segment, released, provenance, updated_at) VALUES "
        "('Card A', 'NVIDIA', 'desktop', true, '{}', now()), ('Card B', 'NVIDIA', 'desktop', true, '{}', now())"
    )
    c.execute(
        "INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, loaded_at) VALUES "
        "('Card A', 'fp16', 'estimate', 1.0, 'test', 'Card A', false, now()), "
        "('Card B', 'fp16', 'estimate', 0.5, 'test', 'Card A', false, now())"
    )
    yield c
    c.close()


def _listing(lid: str, day: date, usd: float, *, model: str | None = "Card A", sold: bool = False,
             condition: str = "used", option: str = "FIXED_PRICE", quantity: int = 1) -> dict:
    seen = datetime(day.year, day.month, day.day, 12)
    return {
        "source": "ebay-test", "listing_id": lid, "title": f"{model} card", "subtitle": None, "price": usd,
        "shipping": 0.0, "currency": "USD", "total_usd": usd, "fx_source": "identity", "condition": condition,
        "condition_class": condition, "buying_option": option, "bid_count": None, "quantity": quantity,
        "sold": sold, "sold_at": seen if sold else None, "first_seen": seen, "last_seen": seen,
        "status": "sold" if sold else "active", "url": None, "marketplace": "EBAY_US", "model": model,
        "match_reason": "test",
    }


def _assert_current(con) -> None:
    assert con.execute(TABLE).fetchall() == con.execute(VIEW).fetchall()
    assert con.execute(DAYS).fetchall() == con.execute(RECOUNT).fetchall()


def test_loads_keep_the_observations_equal_to_their_definition(con):
    d0 = date(2026, 11, 1)
    with load.transaction(con):
        load.load_listings(con, [_listing(str(i), d0, 400 + i) for i in range(6)]
                           + [_listing("s1", d0, 380, sold=True), _listing("auc", d0, 10, option="AUCTION"),
                              _listing("lot", d0, 900, quantity=3), _listing("new", d0, 700, condition="new")])
    _assert_current(con)
    assert con.execute("SELECT count(*) FROM price_observations").fetchall() == [(7,)]

    # Next day: re-seen at a new price (the old snapshot gets its next_date), one sells, one is
    # re-matched to another model, one turns out to be for parts, a new listing appears.
    d1 = d0 + timedelta(days=1)
    with load.transaction(con):
        load.load_listings(con, [_listing("0", d1, 390), _listing("1", d1, 410, sold=True),
                                 _listing("2", d1, 402, model="Card B"), _listing("3", d1, 403, condition="parts"),
                                 _listing("9", d1, 420)])
    _assert_current(con)
    rows = {(r[1], r[4]): r for r in con.execute(TABLE).fetchall()}
    assert rows[("0", d0)][5] == d1 and rows[("0", d1)][5] is None  # superseded by the newer sighting
    assert rows[("1", d1)][3] == "sold" and ("1", d0) not in rows     # a sold listing is one observation
    assert rows[("2", d0)][2] == "Card B"                              # history follows the new match
    assert not [k for k in rows if k[0] == "3"]                        # parts are never prices

    # Reloading the same day changes nothing.
    before = con.execute(TABLE).fetchall()
    with load.transaction(con):
        load.load_listings(con, [_listing("0", d1, 390), _listing("9", d1, 420)])
    assert con.execute(TABLE).fetchall() == before


def test_a_failed_load_leaves_the_observations_as_they_were(con):
    day = date(2026, 11, 1)
    with load.transaction(con):
        load.load_listings(con, [_listing(str(i), day, 400 + i) for i in range(4)])
    before = con.execute(TABLE).fetchall(), con.execute(DAYS).fetchall()
    with pytest.raises(RuntimeError), load.transaction(con):
        load.load_listings(con, [_listing("0", day + timedelta(days=1), 10), _listing("7", day, 500)])
        raise RuntimeError("the source failed after its load")
    assert (con.execute(TABLE).fetchall(), con.execute(DAYS).fetchall()) == before


def test_daily_prices_equal_the_rule_computed_from_the_raw_tables(con):
    """Every day of the crafted history (stale, asking-only, thin, auctions, parts, lots, listings
    re-seen at changing prices): the materialized path gives what the raw tables give."""
    con.execute("DELETE FROM gpus")
    con.execute("DELETE FROM perf")
    _crafted_history(con)
    con.execute(
        """
        INSERT INTO listing_snapshots (source, listing_id, seen_date, price, shipping, currency, total_usd)
        SELECT s.source, s.listing_id, s.seen_date + k, s.price, s.shipping, s.currency, round(s.total_usd * (1 + 0.04 * k), 2)
        FROM listing_snapshots AS s, (VALUES (1), (3), (12), (33)) AS r(k)
        WHERE CAST(s.listing_id AS INTEGER) % 4 = 1
        """
    )
    load.rebuild_price_observations(con)
    _assert_current(con)
    checked = 0
    day = START
    while day <= END:
        load.materialize_day(con, day, precision="fp16", reference=REF, window_days=WINDOW, min_count=MIN_COUNT)
        expected = con.execute(PRICES_FROM_RAW_TABLES, {"as_of": day, "w": WINDOW, "min_count": MIN_COUNT,
                                                        "comparable": 90}).fetchall()
        assert con.execute(MATERIALIZED, [day]).fetchall() == expected, day
        checked += len(expected)
        day += timedelta(days=7)
    assert checked > 50


def test_an_empty_warehouse_prices_nothing(con):
    assert load.materialize_day(con, date(2026, 11, 30), precision="fp16", reference="Card A",
                                window_days=30, min_count=3) == 0


@pytest.mark.e2e
def test_rematch_rebuilds_the_observations(replay_db, tmp_path):
    db = tmp_path / "g.duckdb"
    shutil.copy(replay_db, db)
    c = open_database(db)
    before = c.execute(TABLE).fetchall()
    assert before
    # What an older matcher might have left: every listing on one wrong model, observations too.
    c.execute("UPDATE listings SET model = 'GeForce GTX 1080' WHERE model IS NOT NULL")
    load.rebuild_price_observations(c)
    c.close()

    res = runner.invoke(app, ["rematch", "--db", str(db)])

    assert res.exit_code == 0, res.output
    c = open_database(db, read_only=True)
    try:
        assert c.execute(TABLE).fetchall() == before
        _assert_current(c)
    finally:
        c.close()


def test_upgrading_a_schema_v4_warehouse_builds_the_observations(tmp_path):
    """A warehouse from before schema v5 has listings but no observations: opening it for
    writing migrates it, and the migration derives them from what is there."""
    path = tmp_path / "old.duckdb"
    raw = warehouse_at_version(path, 4)
    day = date(2026, 11, 1)
    rows = [_listing("a", day, 400), _listing("b", day, 410, sold=True), _listing("c", day, 5, condition="parts")]
    for r in rows:
        raw.execute(f"INSERT INTO listings ({', '.join(r)}) VALUES ({', '.join('?' * len(r))})", list(r.values()))
    raw.execute("INSERT INTO listing_snapshots (source, listing_id, seen_date, total_usd) VALUES "
                "('ebay-test', 'a', DATE '2026-11-01', 400), ('ebay-test', 'a', DATE '2026-11-03', 395)")
    raw.close()

    c = open_database(path)
    try:
        got = c.execute("SELECT listing_id, kind, obs_date, next_date, usd FROM price_observations ORDER BY ALL").fetchall()
        assert got == [("a", "asking", date(2026, 11, 1), date(2026, 11, 3), 400.0),
                       ("a", "asking", date(2026, 11, 3), None, 395.0),
                       ("b", "sold", day, None, 410.0)]
        _assert_current(c)
    finally:
        c.close()


@pytest.mark.e2e
def test_the_readme_queries_run_on_a_replayed_warehouse(replay_db):
    """The queries the README offers users are real SQL on the real schema."""
    import re
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[2] / "docs" / "schema.md").read_text(encoding="utf-8")
    block = readme.split("useful queries", 1)[1].split("```sql", 1)[1].split("```", 1)[0]
    queries = [q.strip() for q in block.split(";") if re.sub(r"--[^\n]*", "", q).strip()]
    assert len(queries) == 6
    c = open_database(replay_db, read_only=True)
    try:
        results = [c.execute(q).fetchall() for q in queries]
        # Ask the per-card queries about the best-ranked card with an own price too.
        top = c.execute("SELECT model FROM ranking_latest WHERE price_kind IN ('sold', 'asking') "
                        "ORDER BY rank LIMIT 1").fetchall()[0][0]
        history = c.execute(queries[1].replace("'GeForce RTX 3090'", "?"), [top]).fetchall()
        behind = c.execute(queries[5].replace("'GeForce RTX 3090'", "?"), [top, top]).fetchall()
        price = c.execute("SELECT price_kind, price_n FROM ranking_latest WHERE model = ?", [top]).fetchall()[0]
    finally:
        c.close()
    assert results[0] and results[3]
    assert history
    assert behind and all(row[1] == price[0] and row[2] > 0 for row in behind)
    assert len(behind) >= price[1]  # every kept observation is among them
