"""The ranking orders prices of comparable dates only, and prices a card without an own price from an index.

Real DuckDB, no Prefect: own sold prices of several ages and a published index month, materialized for one day
and as a backfill, which must agree."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone

import pytest

from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.warehouse import load
from gpuvalue.warehouse.backfill import backfill
from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.price_index import load_price_index

DAY = date(2026, 11, 30)
LOADED = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
REF = "GeForce RTX 3090"

# model: (form factor, relative perf)
CARDS = {
    "GeForce RTX 3090": ("PCIe triple-slot", 1.0),
    "GeForce RTX 4070": ("PCIe dual-slot", 0.6),
    "Radeon RX 7900 XTX": ("PCIe triple-slot", 1.0),
    "Tesla P40": ("PCIe passive", 0.4),
    "GeForce RTX 3060 12 GB": ("PCIe dual-slot", 0.45),
}


def _sold(lid: str, model: str, usd: float, day: date) -> dict:
    at = datetime(day.year, day.month, day.day, 12)
    return {
        "source": "ebay-test", "listing_id": lid, "title": f"{model} card", "subtitle": None, "price": usd,
        "shipping": 0.0, "currency": "USD", "total_usd": usd, "fx_source": "identity", "condition": "used",
        "condition_class": "used", "buying_option": "FIXED_PRICE", "bid_count": None, "quantity": 1, "sold": True,
        "sold_at": at, "first_seen": at, "last_seen": at, "status": "sold", "url": None, "marketplace": "EBAY_US",
        "model": model, "match_reason": "test",
    }


def _index(model: str, usd: float, month: date, qty: int = 100) -> PriceIndexPoint:
    return PriceIndexPoint(source="tomshardware-ebay-index", gpu_name=model, model=model, match_reason="test",
                           month=month, avg_sold_usd=usd, quantity_sold=qty, published=month, table="t.csv")


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    for model, (form, perf) in CARDS.items():
        c.execute("INSERT INTO gpus (model, vendor, released, desktop_usable, framework_supported, framework_support, "
                  "form_factor, memory_gb) VALUES (?, 'NVIDIA', true, true, true, 'current', ?, 24)", [model, form])
        c.execute("INSERT INTO perf VALUES (?, 'fp16', 'bench', ?, 'measured', ?, true, 3, NULL, NULL, now())",
                  [model, perf, REF])
    listings = []
    # Fresh: the 4070 and the 7900 XTX sold last week; the P40 sold eleven months ago; the 3090 two years ago.
    for i, usd in enumerate((500, 510, 520)):
        listings.append(_sold(f"4070-{i}", "GeForce RTX 4070", usd, DAY - timedelta(days=5)))
        listings.append(_sold(f"xtx-{i}", "Radeon RX 7900 XTX", usd * 2, DAY - timedelta(days=6)))
        listings.append(_sold(f"p40-{i}", "Tesla P40", 150 + i, DAY - timedelta(days=330)))
        listings.append(_sold(f"3090-{i}", "GeForce RTX 3090", 700 + i, date(2024, 11, 20)))
    load.load_listings(c, listings)
    # The index prices the 3060 (no own observation) and the 3090 (which has an own price, so it is not used).
    load_price_index(c, [_index("GeForce RTX 3060 12 GB", 218.0, date(2023, 10, 1), 560),
                         _index("GeForce RTX 3090", 650.0, date(2023, 10, 1)),
                         _index("GeForce RTX 3060 12 GB", 999.0, date(2026, 11, 1))], LOADED)  # month not over yet
    yield c
    c.close()


def _ranking(c, day=DAY) -> list[dict]:
    cur = c.execute("SELECT * FROM ranking_daily WHERE as_of = ? ORDER BY rank", [day])
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]


def test_recent_prices_rank_first_and_older_ones_after_them_with_their_age(con):
    load.materialize_day(con, DAY, precision="fp16", reference=REF, window_days=30, min_count=3, comparable_days=90)
    rows = _ranking(con)
    assert [(r["rank"], r["model"], r["price_tier"]) for r in rows] == [
        (1, "GeForce RTX 4070", "recent"),  # 0.6 per $510
        (2, "Radeon RX 7900 XTX", "recent"),  # 1.0 per $1020
        (3, "Tesla P40", "older"),  # the best value of all (0.4 per $151), but priced 11 months ago
        (4, "GeForce RTX 3060 12 GB", "older"),  # 0.45 per $218, an index month
        (5, "GeForce RTX 3090", "older"),  # 1.0 per $701, two years ago
    ]
    by = {r["model"]: r for r in rows}
    assert by["Tesla P40"]["perf_per_dollar"] > by["GeForce RTX 4070"]["perf_per_dollar"]
    assert (by["Tesla P40"]["price_age_days"], by["Tesla P40"]["stale"], by["Tesla P40"]["passive"]) == (330, True, True)
    assert (by["GeForce RTX 4070"]["price_age_days"], by["GeForce RTX 4070"]["stale"]) == (5, False)
    assert by["GeForce RTX 4070"]["framework_support"] == "current" and by["GeForce RTX 4070"]["passive"] is False


def test_an_index_prices_only_a_card_without_an_own_price_labelled_and_never_mixed(con):
    load.materialize_day(con, DAY, precision="fp16", reference=REF, window_days=30, min_count=3)
    by = {r["model"]: r for r in _ranking(con)}
    index = by["GeForce RTX 3060 12 GB"]
    # The newest month that is over on the day (November 2026 is not), its quantity as n, no quartiles.
    assert (index["price_kind"], index["price_usd"], index["price_n"], index["price_as_of"], index["price_source"],
            index["price_q1"], index["price_q3"]) == (
        "index", 218.0, 560, date(2023, 10, 1), "tomshardware-ebay-index", None, None)
    own = by["GeForce RTX 3090"]
    assert (own["price_kind"], own["price_usd"], own["price_source"]) == ("sold", 701.0, None)
    # The index never became an own price.
    assert con.execute("SELECT count(*) FROM prices_daily WHERE model = 'GeForce RTX 3060 12 GB'").fetchone() == (0,)


def test_a_wider_comparable_window_puts_more_prices_in_one_order(con):
    load.materialize_day(con, DAY, precision="fp16", reference=REF, window_days=30, min_count=3, comparable_days=365)
    rows = _ranking(con)
    assert [r["model"] for r in rows if r["price_tier"] == "recent"] == [
        "Tesla P40", "GeForce RTX 4070", "Radeon RX 7900 XTX"]


def test_backfill_ranks_exactly_as_the_daily_step(con):
    first, last = DAY - timedelta(days=2), DAY
    for day in (first, first + timedelta(days=1), last):
        load.materialize_day(con, day, precision="fp16", reference=REF, window_days=30, min_count=3)
    daily = [_ranking(con, d) for d in (first, last)]
    con.execute("DELETE FROM ranking_daily")
    con.execute("DELETE FROM prices_daily")
    backfill(con, first, last, precision="fp16", reference=REF, window_days=30, min_count=3)
    assert [_ranking(con, d) for d in (first, last)] == daily


def test_an_own_price_far_older_than_the_index_month_gives_way_to_it(con):
    """An own price more than comparable_days older than the index's newest month (a 2020 archive's sales
    against a 2023 index month) does not stand for the card; the index does, for one day and in a backfill."""
    load.load_listings(con, [_sold(f"3060-{i}", "GeForce RTX 3060 12 GB", 900 + i, date(2020, 11, 20)) for i in range(3)])
    load.materialize_day(con, DAY, precision="fp16", reference=REF, window_days=30, min_count=3, comparable_days=90)
    own = con.execute("SELECT price_usd, price_as_of FROM prices_daily WHERE as_of = ? AND model = ?",
                      [DAY, "GeForce RTX 3060 12 GB"]).fetchone()
    assert own == (901.0, date(2020, 11, 20))  # the own price is there, years older than the index month
    rows = {r["model"]: r for r in _ranking(con)}
    card = rows["GeForce RTX 3060 12 GB"]
    assert (card["price_kind"], card["price_usd"], card["price_as_of"]) == ("index", 218.0, date(2023, 10, 1))
    assert rows["GeForce RTX 3090"]["price_kind"] == "sold"  # own of 2024-11, newer than the index month: it stands
    daily = _ranking(con)
    backfill(con, DAY, DAY, precision="fp16", reference=REF, window_days=30, min_count=3, comparable_days=90)
    assert _ranking(con) == daily
