"""The price rule keeps a card whose newest observations are too few: it takes the newest window
holding at least price_min_count prices, flagged stale, instead of dropping the card because a
single newer sale sits in a window of its own. Real DuckDB, hand-made histories, no Prefect."""

from __future__ import annotations

from datetime import date, datetime, timedelta

import pytest

from gpuvalue.warehouse import backfill as bf
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from price_rule_reference import MATERIALIZED, PRICES_FROM_RAW_TABLES

AS_OF = date(2026, 11, 30)
WINDOW, MIN_COUNT = 30, 3


def _listing(lid: str, model: str, usd: float, day: date, *, sold: bool = True) -> dict:
    seen = datetime(day.year, day.month, day.day, 12)
    return {
        "source": "ebay-test", "listing_id": lid, "title": f"{model} card", "subtitle": None, "price": usd,
        "shipping": 0.0, "currency": "USD", "total_usd": usd, "fx_source": "identity", "condition": "used",
        "condition_class": "used", "buying_option": "FIXED_PRICE", "bid_count": None, "quantity": 1,
        "sold": sold, "sold_at": seen if sold else None, "first_seen": seen, "last_seen": seen,
        "status": "sold" if sold else "active", "url": None, "marketplace": "EBAY_US", "model": model,
        "match_reason": "test",
    }


def _sales(prefix: str, model: str, prices: list[float], day: date, *, sold: bool = True) -> list[dict]:
    return [_listing(f"{prefix}{i}", model, p, day, sold=sold) for i, p in enumerate(prices)]


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    for model, perf in (("GeForce RTX 4090", 1.6), ("Card B", 0.5), ("Card C", 0.4), ("Card D", 0.3)):
        c.execute("INSERT INTO gpus (model, vendor, released, desktop_usable, framework_supported) "
                  "VALUES (?, 'NVIDIA', true, true, true)", [model])
        c.execute("INSERT INTO perf VALUES (?, 'fp16', 'bench', ?, 'measured', 'GeForce RTX 4090', true, 3, NULL, "
                  "NULL, now())", [model, perf])
    yield c
    c.close()


def _materialize(con, as_of: date = AS_OF) -> int:
    return load.materialize_day(con, as_of, precision="fp16", reference="GeForce RTX 4090", window_days=WINDOW,
                                min_count=MIN_COUNT)


def _ranked(con, model: str, as_of: date = AS_OF):
    return con.execute("SELECT price_usd, price_kind, price_n, price_as_of, stale FROM ranking_daily "
                       "WHERE model = ? AND as_of = ?", [model, as_of]).fetchone()


THIRTEEN = [1500 + 10 * i for i in range(13)]  # median 1560


def test_thirteen_old_sales_and_one_newer_sale_price_the_card_from_the_old_window_stale(con):
    """The replay's RTX 4090: 13 sales on 2023-12-05, one on 2025-11-25, nothing in the last 30 days.
    The old rule judged only the window of the newest sale (one price, under the minimum) and
    dropped the card."""
    old, newer = date(2023, 12, 5), date(2025, 11, 25)
    load.load_listings(con, _sales("old", "GeForce RTX 4090", THIRTEEN, old) + [_listing("new", "GeForce RTX 4090", 1900, newer)])
    assert _materialize(con) == 1
    assert _ranked(con, "GeForce RTX 4090") == (1560.0, "sold", 13, old, True)


def test_one_sale_inside_the_window_does_not_hide_an_older_window_that_counts(con):
    old = AS_OF - timedelta(days=200)
    load.load_listings(con, _sales("old", "GeForce RTX 4090", THIRTEEN, old)
                       + [_listing("new", "GeForce RTX 4090", 1900, AS_OF - timedelta(days=2))])
    _materialize(con)
    assert _ranked(con, "GeForce RTX 4090") == (1560.0, "sold", 13, old, True)


def test_a_trailing_window_that_counts_still_wins_fresh(con):
    load.load_listings(con, _sales("old", "Card B", THIRTEEN, AS_OF - timedelta(days=200))
                       + _sales("new", "Card B", [700, 710, 720], AS_OF - timedelta(days=1)))
    _materialize(con)
    assert _ranked(con, "Card B") == (710.0, "sold", 3, AS_OF - timedelta(days=1), False)


def test_fresh_asking_prices_still_beat_a_stale_sold_window(con):
    d = AS_OF - timedelta(days=1)
    load.load_listings(con, _sales("old", "Card C", THIRTEEN, AS_OF - timedelta(days=300))
                       + [_listing("s", "Card C", 650, d)] + _sales("a", "Card C", [600, 620, 640, 660], d, sold=False))
    _materialize(con)
    assert _ranked(con, "Card C") == (615.0, "asking", 4, d, False)  # lower quartile


def test_a_window_thinned_below_the_minimum_by_outliers_is_passed_over_for_an_older_one(con):
    """Three sales on one day, one of them a tenfold typo: two prices remain, so that window does not
    count, and the newest older window that does sets the price."""
    older, thinned = AS_OF - timedelta(days=120), AS_OF - timedelta(days=60)
    load.load_listings(con, _sales("o", "Card D", [300, 310, 320], older)
                       + _sales("t", "Card D", [400, 400, 4000], thinned))
    _materialize(con)
    assert _ranked(con, "Card D") == (310.0, "sold", 3, older, True)


def test_a_card_without_any_window_that_counts_is_still_not_priced(con):
    load.load_listings(con, [_listing("a", "Card B", 700, AS_OF - timedelta(days=100)),
                             _listing("b", "Card B", 710, AS_OF - timedelta(days=40)),
                             _listing("c", "Card B", 720, AS_OF - timedelta(days=3))])
    assert _materialize(con) == 0


def _mixed_history(con) -> None:
    """Thin windows between full ones, a window thinned by an outlier, asking listings re-seen at
    new prices, across the days the backfill below covers."""
    start = AS_OF - timedelta(days=150)
    rows = []
    for k in range(0, 150, 9):  # Card B: a full week of sales every ninth day, then a single sale
        day = start + timedelta(days=k)
        rows += _sales(f"b{k}-", "Card B", [700 + k, 705 + k, 710 + k, 720 + k], day) if k % 27 == 0 else \
            [_listing(f"b{k}", "Card B", 690 + k, day)]
    rows += _sales("d-old", "Card D", [300, 310, 320], start)
    rows += _sales("d-thin", "Card D", [400, 400, 4000], start + timedelta(days=70))
    rows += [_listing("d-one", "Card D", 350, start + timedelta(days=120))]
    rows += _sales("c-ask", "Card C", [600, 610, 620], start + timedelta(days=10), sold=False)
    rows += _sales("c-sold", "GeForce RTX 4090", THIRTEEN, start + timedelta(days=5))
    rows += [_listing("c-late", "GeForce RTX 4090", 1700, start + timedelta(days=100))]
    load.load_listings(con, rows)
    # The asking listings are seen again, cheaper, 40 days later: a window ending after that counts
    # each of them once, at the newer price.
    later = start + timedelta(days=50)
    load.load_listings(con, [{**r, "price": r["price"] - 50, "total_usd": r["total_usd"] - 50,
                              "first_seen": datetime(later.year, later.month, later.day, 12),
                              "last_seen": datetime(later.year, later.month, later.day, 12)}
                             for r in rows if r["listing_id"].startswith("c-ask")])
@pytest.mark.e2e  # over ~2 s: the full suite runs it, the fast tier does not
def test_the_backfill_and_the_raw_reference_agree_with_the_daily_rule_on_thin_windows(con):
    _mixed_history(con)
    start = AS_OF - timedelta(days=120)
    day = start
    while day <= AS_OF:
        _materialize(con, day)
        expected = con.execute(PRICES_FROM_RAW_TABLES, {"as_of": day, "w": WINDOW, "min_count": MIN_COUNT,
                                                        "comparable": 90}).fetchall()
        assert con.execute(MATERIALIZED, [day]).fetchall() == expected, day
        day += timedelta(days=1)
    daily = con.execute("SELECT * FROM prices_daily ORDER BY as_of, model").fetchall()
    ranking = con.execute("SELECT * FROM ranking_daily ORDER BY as_of, rank").fetchall()
    # The history does reach the fallback: stale prices from windows before a thinner newer one.
    stale = {(r[1], r[7]) for r in daily if r[7] <= r[0] - timedelta(days=WINDOW)}
    assert ("Card D", AS_OF - timedelta(days=150)) in stale
    assert ("GeForce RTX 4090", AS_OF - timedelta(days=145)) in stale

    con.execute("DELETE FROM prices_daily")
    con.execute("DELETE FROM ranking_daily")
    bf.backfill(con, start, AS_OF, precision="fp16", reference="GeForce RTX 4090", window_days=WINDOW,
                min_count=MIN_COUNT)
    assert con.execute("SELECT * FROM prices_daily ORDER BY as_of, model").fetchall() == daily
    assert con.execute("SELECT * FROM ranking_daily ORDER BY as_of, rank").fetchall() == ranking


# When every price of a card is stale: the newer wins unless the two are of comparable age, where sold does.
FOUR_ASKING = [600, 620, 640, 660]  # lower quartile 615


def _both_stale(con, sold_day: date, asking_day: date, model: str = "Card C") -> None:
    load.load_listings(con, _sales("s", model, THIRTEEN[:5], sold_day) + _sales("a", model, FOUR_ASKING, asking_day, sold=False))


def test_a_sold_price_of_2020_does_not_beat_a_stale_asking_price_of_2025(con):
    """The opt-in sales archive of 2020 (or an import of them) beside asking prices a year old: the
    card's price is the 2025 asking price, not the 2020 sales (which the former rule chose)."""
    sold, asking = date(2020, 10, 1), date(2025, 11, 25)
    _both_stale(con, sold, asking)
    _materialize(con)
    assert _ranked(con, "Card C") == (615.0, "asking", 4, asking, True)


def test_of_two_stale_prices_of_comparable_age_sold_still_beats_asking(con):
    asking = AS_OF - timedelta(days=100)
    _both_stale(con, asking - timedelta(days=90), asking)  # 90 days apart: comparable (GPUVALUE_PRICE_COMPARABLE_DAYS)
    _materialize(con)
    assert _ranked(con, "Card C") == (1520.0, "sold", 5, asking - timedelta(days=90), True)


def test_of_two_stale_prices_a_newer_sold_price_wins(con):
    asking = AS_OF - timedelta(days=400)
    _both_stale(con, AS_OF - timedelta(days=45), asking)
    _materialize(con)
    assert _ranked(con, "Card C") == (1520.0, "sold", 5, AS_OF - timedelta(days=45), True)


def test_the_comparable_window_is_the_setting(con):
    sold, asking = AS_OF - timedelta(days=300), AS_OF - timedelta(days=100)  # 200 days apart
    _both_stale(con, sold, asking)
    _materialize(con)
    assert _ranked(con, "Card C")[1] == "asking"
    load.materialize_day(con, AS_OF, precision="fp16", reference="GeForce RTX 4090", window_days=WINDOW,
                         min_count=MIN_COUNT, comparable_days=365)
    assert _ranked(con, "Card C")[1] == "sold"
    con.execute("DELETE FROM prices_daily")
    bf.backfill(con, AS_OF, AS_OF, precision="fp16", reference="GeForce RTX 4090", window_days=WINDOW,
                min_count=MIN_COUNT, comparable_days=365)
    assert _ranked(con, "Card C")[1] == "sold"


def test_the_backfill_makes_the_daily_choice_between_stale_prices_day_by_day(con):
    """Sold prices of 2020 and asking prices that age past the window during the range, and two cards
    whose stale prices are comparable in age: every day, the backfill's price is the daily rule's."""
    start = AS_OF - timedelta(days=60)
    _both_stale(con, date(2020, 10, 1), start - timedelta(days=10))
    load.load_listings(con, _sales("bs", "Card B", THIRTEEN[:4], start - timedelta(days=120), )
                       + _sales("ba", "Card B", [700, 710, 720], start - timedelta(days=60), sold=False)
                       + _sales("ds", "Card D", [300, 310, 320], start - timedelta(days=20))
                       + _sales("da", "Card D", [280, 290, 295], start - timedelta(days=300), sold=False))
    day = start
    while day <= AS_OF:
        _materialize(con, day)
        day += timedelta(days=1)
    daily = con.execute("SELECT * FROM prices_daily ORDER BY as_of, model").fetchall()
    kinds = {(r[1], r[3]) for r in daily}
    assert ("Card C", "asking") in kinds and ("Card C", "sold") not in kinds
    assert ("Card B", "sold") in kinds and ("Card D", "sold") in kinds
    con.execute("DELETE FROM prices_daily")
    bf.backfill_prices(con, start, AS_OF, WINDOW, MIN_COUNT)
    assert con.execute("SELECT * FROM prices_daily ORDER BY as_of, model").fetchall() == daily


@pytest.mark.parametrize(("sold", "asking", "wins"), [
    (None, "2026-11-01", False), ("2026-11-01", None, True),
    ("2026-11-20", "2026-11-29", True),  # both fresh: sold
    ("2026-11-20", "2026-10-01", True), ("2026-10-01", "2026-11-20", False),  # fresh beats stale
    ("2020-10-01", "2025-11-25", False),  # both stale, years apart: the newer
    ("2025-08-27", "2025-11-25", True),  # both stale, 90 days apart: sold
    ("2025-08-26", "2025-11-25", False),  # 91 days apart: the newer
    ("2025-11-25", "2020-10-01", True),
])
def test_the_one_definition_of_the_choice(con, sold, asking, wins):
    assert con.execute("SELECT sold_price_wins(CAST(? AS DATE), CAST(? AS DATE), DATE '2026-11-30', 30, 90)",
                       [sold, asking]).fetchone()[0] is wins
