"""The price rule and the ranking SQL on small hand-made histories (real DuckDB, no Prefect)."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import integrity_check, open_database

AS_OF = date(2026, 11, 30)


def _row(lid, model, usd, *, day, sold=False, cond="used", option="FIXED_PRICE", qty=1, source="ebay-browse"):
    seen = datetime.combine(day, datetime.min.time()) + timedelta(hours=12)
    return {
        "source": source, "listing_id": lid, "title": f"{model} card", "subtitle": None, "price": usd, "shipping": 0.0,
        "currency": "USD", "total_usd": usd, "fx_source": "identity", "condition": cond, "condition_class": cond,
        "buying_option": option, "bid_count": None, "quantity": qty, "sold": sold, "sold_at": seen if sold else None,
        "first_seen": seen, "last_seen": seen, "status": "sold" if sold else "active", "url": None,
        "marketplace": "EBAY_US", "model": model, "match_reason": "matched",
    }


@pytest.fixture()
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    for model, mem, perf in (("Card A", 24.0, 1.0), ("Card B", 12.0, 0.5), ("Card C", 8.0, 0.3)):
        c.execute("INSERT INTO gpus (model, vendor, memory_gb, released, desktop_usable, framework_supported) "
                  "VALUES (?, 'NVIDIA', ?, true, true, true)", [model, mem])
        c.execute("INSERT INTO perf VALUES (?, 'fp16', 'bench', ?, 'measured', 'Card A', true, 3, NULL, NULL, now())",
                  [model, perf])
    return c


def _materialize(con, as_of=AS_OF):
    return load.materialize_day(con, as_of, precision="fp16", reference="Card A", window_days=30, min_count=3)


def _price(con, model, as_of=AS_OF):
    return con.execute("SELECT price_usd, price_kind, price_n, price_as_of FROM prices_daily WHERE model = ? AND as_of = ?",
                       [model, as_of]).fetchone()


def test_sold_median_drops_outliers_and_ignores_parts_new_lots_and_auction_bids(con):
    d = AS_OF - timedelta(days=3)
    rows = [_row(f"s{i}", "Card A", p, day=d, sold=True) for i, p in enumerate([700, 720, 740, 760, 780])]
    rows += [
        _row("junk-low", "Card A", 9, day=d, sold=True),          # a photo sold for $9
        _row("junk-high", "Card A", 25000, day=d, sold=True),     # a typo
        _row("parts", "Card A", 100, day=d, sold=True, cond="parts"),
        _row("new", "Card A", 1500, day=d, sold=True, cond="new"),
        _row("lot", "Card A", 2000, day=d, sold=True, qty=3),
        _row("bid", "Card A", 50, day=d, option="AUCTION"),        # a current bid is never a price
    ]
    load.load_listings(con, rows)
    _materialize(con)
    assert _price(con, "Card A") == (740.0, "sold", 5, d)


def test_too_few_sold_falls_back_to_the_lower_quartile_of_asking(con):
    d = AS_OF - timedelta(days=1)
    rows = [_row("s1", "Card B", 300, day=d, sold=True)]
    rows += [_row(f"a{i}", "Card B", p, day=d) for i, p in enumerate([400, 420, 440, 460, 480])]
    load.load_listings(con, rows)
    _materialize(con)
    price, kind, n, as_of = _price(con, "Card B")
    assert kind == "asking" and n == 5 and price == 420.0 and as_of == d


def test_a_listing_seen_on_many_days_counts_once(con):
    for day_back in range(10):
        d = AS_OF - timedelta(days=day_back)
        load.load_listings(con, [_row("sticky", "Card C", 180, day=d)])
    load.load_listings(con, [_row(f"o{i}", "Card C", p, day=AS_OF) for i, p in enumerate([200, 210])])
    _materialize(con)
    price, kind, n, _ = _price(con, "Card C")
    assert (kind, n) == ("asking", 3)


def test_old_prices_are_kept_but_flagged_stale_never_as_todays(con):
    old = AS_OF - timedelta(days=200)
    load.load_listings(con, [_row(f"s{i}", "Card A", p, day=old, sold=True) for i, p in enumerate([700, 710, 720])])
    load.load_listings(con, [_row(f"t{i}", "Card B", p, day=AS_OF, sold=True) for i, p in enumerate([300, 310, 320])])
    assert _materialize(con) == 2
    rows = dict((m, (pa, st)) for m, pa, st in con.execute(
        "SELECT model, price_as_of, stale FROM ranking_daily WHERE as_of = ?", [AS_OF]).fetchall())
    assert rows["Card A"] == (old, True)
    assert rows["Card B"] == (AS_OF, False)


def test_ranking_orders_by_perf_per_dollar_with_deterministic_ties_and_is_idempotent(con):
    d = AS_OF
    rows = [_row(f"a{i}", "Card A", 1000, day=d, sold=True) for i in range(3)]
    rows += [_row(f"b{i}", "Card B", 500, day=d, sold=True) for i in range(3)]   # same perf per dollar as A
    rows += [_row(f"c{i}", "Card C", 200, day=d, sold=True) for i in range(3)]
    load.load_listings(con, rows)
    _materialize(con)
    first = con.execute("SELECT rank, model, perf_per_dollar FROM ranking_daily ORDER BY rank").fetchall()
    assert first == [(1, "Card C", 1.5), (2, "Card A", 1.0), (3, "Card B", 1.0)]
    load.load_listings(con, rows)
    _materialize(con)
    assert con.execute("SELECT rank, model, perf_per_dollar FROM ranking_daily ORDER BY rank").fetchall() == first
    assert integrity_check(con) == []


def test_a_sold_price_never_changes_once_recorded(con):
    d = AS_OF - timedelta(days=2)
    load.load_listings(con, [_row("x", "Card A", 700, day=d, sold=True)])
    later = _row("x", "Card A", 999, day=AS_OF, sold=True)
    load.load_listings(con, [later])
    assert con.execute("SELECT price, total_usd, CAST(sold_at AS DATE), CAST(last_seen AS DATE) FROM listings").fetchone() == (
        700.0, 700.0, d, AS_OF)


def test_a_batch_showing_one_listing_twice_keeps_its_newest_observation(con):
    d = AS_OF - timedelta(days=1)
    load.load_listings(con, [_row("dup", "Card A", 700, day=d), _row("dup", "Card A", 650, day=AS_OF),
                             _row("other", "Card A", 600, day=AS_OF)])
    assert con.execute("SELECT listing_id, price, CAST(last_seen AS DATE) FROM listings ORDER BY 1").fetchall() == [
        ("dup", 650.0, AS_OF), ("other", 600.0, AS_OF)]
    assert integrity_check(con) == []
    load.load_listings(con, [_row("dup", "Card A", 640, day=AS_OF)])  # no duplicates: the view path
    assert con.execute("SELECT count(*), min(price) FROM listings WHERE listing_id = 'dup'").fetchone() == (1, 640.0)


def test_new_cards_are_priced_apart_from_the_used_market(con):
    d = AS_OF - timedelta(days=2)
    load.load_listings(con, [_row(f"u{i}", "Card A", p, day=d, sold=True) for i, p in enumerate([700, 710, 720])])
    load.load_listings(con, [_row(f"n{i}", "Card A", p, day=d, cond="new") for i, p in enumerate([1400, 1500, 1600])])
    _materialize(con)
    assert _price(con, "Card A")[:3] == (710.0, "sold", 3)  # the ranking's price ignores the new cards
    assert con.execute("SELECT price_kind, price_n, price_usd, price_as_of FROM new_card_prices WHERE model = 'Card A'"
                       ).fetchall() == [("asking", 3, 1500.0, d)]


def test_listings_without_a_buying_option_price_as_fixed_price_asks(con):
    # r/hardwareswap posts carry no buying option: they are asking prices, never auction bids.
    rows = [_row(f"h{i}", "Card B", p, day=AS_OF, option=None, source="hardwareswap") for i, p in enumerate([400, 410, 420])]
    load.load_listings(con, rows)
    _materialize(con)
    assert _price(con, "Card B")[1:3] == ("asking", 3)
