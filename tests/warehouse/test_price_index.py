"""The price index in the warehouse (schema v9): the migration on a fresh and on an existing
database, the load, the comparison with the own sold prices and its alarm, price_index_latest, and
the index's months in price_history that never reach an own median. Real DuckDB, no Prefect."""

from __future__ import annotations

from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest

from conftest_exports import warehouse_at_version
from gpuvalue.models.index_matching import match_points
from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.scrapers.sources import tomshardware_ebay_index as index
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import current_version, migrations, open_database
from gpuvalue.warehouse.outputs.feed import describe_price, feed_inputs
from gpuvalue.warehouse.price_index import load_price_index, price_index_alarms, price_index_latest

SERIES = Path(__file__).resolve().parents[1] / "fixtures" / "prices" / "tomshardware_ebay_monthly" / index.TIME_SERIES
LOADED = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
OCTOBER = date(2023, 10, 1)


@pytest.fixture(scope="module")
def points() -> list[PriceIndexPoint]:
    return match_points(index.parse_time_series(SERIES.read_bytes(), index.TIME_SERIES_URL), index.NAMING)


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    yield c
    c.close()


def _point(name: str, model: str | None, usd: float, month: date, *, qty: int | None = 10, source: str = "other-index",
           published: date | None = None) -> PriceIndexPoint:
    return PriceIndexPoint(source=source, gpu_name=name, model=model, match_reason="test", month=month,
                           avg_sold_usd=usd, quantity_sold=qty, published=published or month, table="t.csv")


def _sold(lid: str, model: str, usd: float, day: date, *, sold: bool = True) -> dict:
    at = datetime(day.year, day.month, day.day, 12)
    return {
        "source": "ebay-test", "listing_id": lid, "title": f"{model} card", "subtitle": None, "price": usd,
        "shipping": 0.0, "currency": "USD", "total_usd": usd, "fx_source": "identity", "condition": "used",
        "condition_class": "used", "buying_option": "FIXED_PRICE", "bid_count": None, "quantity": 1, "sold": sold,
        "sold_at": at if sold else None, "first_seen": at, "last_seen": at, "status": "sold" if sold else "active",
        "url": None, "marketplace": "EBAY_US", "model": model, "match_reason": "test",
    }


# --------------------------------------------------------------------------- migration

def test_the_migration_is_the_next_version_and_applies_on_a_fresh_database(con):
    versions = [v for v, _, _ in migrations()]
    assert versions.index(9) == versions.index(8) + 1
    assert current_version(con) == versions[-1]
    objects = dict(con.execute("SELECT table_name, table_type FROM information_schema.tables "
                               "WHERE table_name LIKE 'price_%'").fetchall())
    assert objects["price_index_monthly"] == "BASE TABLE"
    assert objects["price_index_vs_own"] == objects["price_index_latest"] == objects["price_history"] == "VIEW"
    assert con.execute("SELECT count(*) FROM price_history").fetchone() == (0,)


def test_the_migration_upgrades_an_existing_database_and_keeps_its_history(tmp_path):
    path = tmp_path / "v8.duckdb"
    raw = warehouse_at_version(path, 8)
    raw.execute("INSERT INTO prices_daily VALUES (DATE '2026-11-30', 'GeForce RTX 3090', 700, 'sold', 5, 650, 750, "
                "DATE '2026-11-29', 30, 'median of sold')")
    raw.close()

    c = open_database(path)
    try:
        assert current_version(c) == migrations()[-1][0]
        assert c.execute("SELECT * FROM price_history").fetchall() == [
            (date(2026, 11, 30), "GeForce RTX 3090", 700.0, "sold", 5)]
        assert c.execute("SELECT count(*) FROM price_index_monthly").fetchone() == (0,)
    finally:
        c.close()
    c = open_database(path)  # opening again applies nothing twice
    try:
        assert c.execute("SELECT count(*) FROM schema_version WHERE version = 9").fetchone() == (1,)
    finally:
        c.close()


# --------------------------------------------------------------------------- load

def test_the_published_index_loads_whole_and_a_reload_replaces_it(con, points):
    assert load_price_index(con, points, LOADED) == 1055
    assert load_price_index(con, points, LOADED) == 1055
    assert con.execute("SELECT count(*), count(model), count(DISTINCT model), min(month), max(month), max(loaded_at) "
                       "FROM price_index_monthly").fetchone() == (
        1055, 1012, 53, date(2021, 10, 1), OCTOBER, datetime(2026, 11, 30, 6, 0))
    assert con.execute("SELECT model, avg_sold_usd, quantity_sold, published FROM price_index_monthly "
                       "WHERE gpu_name = 'GeForce RTX 4080' AND month = DATE '2022-11-01'").fetchone() == (
        "GeForce RTX 4080", 1503.0, None, date(2022, 11, 1))

    other = [_point("RTX 3090", "GeForce RTX 3090", 700, OCTOBER)]
    load_price_index(con, other, LOADED)
    # Replacing one source leaves the other's rows; a source's new batch is its whole truth.
    load_price_index(con, points[:10], LOADED)
    assert con.execute("SELECT source, count(*) FROM price_index_monthly GROUP BY ALL ORDER BY ALL").fetchall() == [
        ("other-index", 1), (index.NAME, 10)]
    assert load_price_index(con, [], LOADED, source=index.NAME) == 0
    assert con.execute("SELECT source FROM price_index_monthly").fetchall() == [("other-index",)]
    with pytest.raises(ValueError, match="other-index"):
        load_price_index(con, other, LOADED, source=index.NAME)


def test_a_month_published_twice_keeps_the_newest_article(con):
    first = _point("RTX 3090", "GeForce RTX 3090", 700, OCTOBER, published=date(2023, 10, 1))
    revised = _point("RTX 3090", "GeForce RTX 3090", 690, OCTOBER, published=date(2023, 11, 1))
    assert load_price_index(con, [revised, first], LOADED) == 1
    assert con.execute("SELECT avg_sold_usd, published FROM price_index_monthly").fetchone() == (690.0, date(2023, 11, 1))


# --------------------------------------------------------------------------- the index against the own sold prices

def test_the_own_sold_median_is_compared_where_both_cover_a_model_month_and_the_alarm_fires_above_25_percent(con, points):
    load_price_index(con, points, LOADED)
    day = date(2023, 10, 14)
    rows = [_sold(f"a{i}", "GeForce RTX 3090", p, day) for i, p in enumerate([690, 720, 740])]       # index $704
    rows += [_sold(f"b{i}", "GeForce RTX 4090", p, day) for i, p in enumerate([2200, 2300, 2400])]  # index $1,704
    rows += [_sold("c0", "Radeon RX 6800 XT", 600, day)]                                             # index $391, one sale
    rows += [_sold(f"d{i}", "GeForce RTX 3080", p, day) for i, p in enumerate([500, 520, 540])]      # index $401: +29.7 %
    rows += [_sold(f"e{i}", "GeForce RTX 3080", p, date(2023, 11, 2)) for i, p in enumerate([900, 900, 900])]  # no index month
    rows += [_sold(f"f{i}", "GeForce RTX 3070", p, day, sold=False) for i, p in enumerate([100, 100, 100])]    # asking only
    load.load_listings(con, rows)

    got = {r[0]: r[1:] for r in con.execute(
        "SELECT model, month, index_avg_usd, index_quantity, own_n, own_median_usd, own_avg_usd, round(rel_diff, 4) "
        "FROM price_index_vs_own ORDER BY model").fetchall()}
    assert got == {
        "GeForce RTX 3080": (OCTOBER, 401.0, 849, 3, 520.0, 520.0, 0.2968),
        "GeForce RTX 3090": (OCTOBER, 704.0, 765, 3, 720.0, 716.67, 0.0227),
        "GeForce RTX 4090": (OCTOBER, 1704.0, 304, 3, 2300.0, 2300.0, 0.3498),
        "Radeon RX 6800 XT": (OCTOBER, 391.0, 168, 1, 600.0, 600.0, 0.5345),
    }
    alarms = price_index_alarms(con)
    assert [(a["model"], a["rel_diff"]) for a in alarms] == [("GeForce RTX 4090", 0.3498), ("GeForce RTX 3080", 0.2968)]
    assert [a["model"] for a in price_index_alarms(con, min_own=1)][0] == "Radeon RX 6800 XT"
    assert price_index_alarms(con, max_rel_diff=0.4) == []


def test_an_index_cheaper_than_the_own_median_by_more_than_25_percent_alarms_too(con):
    load_price_index(con, [_point("RTX 3090", "GeForce RTX 3090", 1000, OCTOBER)], LOADED)
    load.load_listings(con, [_sold(f"a{i}", "GeForce RTX 3090", 700, date(2023, 10, 31)) for i in range(3)])
    (alarm,) = price_index_alarms(con)
    assert (alarm["model"], alarm["rel_diff"], alarm["own_n"]) == ("GeForce RTX 3090", -0.3, 3)


def test_price_index_latest_is_each_models_newest_month(con, points):
    load_price_index(con, points + [_point("RTX 3090", "GeForce RTX 3090", 650, OCTOBER, qty=900),
                                    _point("Unknown card", None, 100, date(2024, 1, 1))], LOADED)
    latest = price_index_latest(con)
    assert len(latest) == 53
    assert {k: latest["GeForce RTX 4090"][k] for k in ("source", "month", "avg_sold_usd", "quantity_sold")} == {
        "source": index.NAME, "month": OCTOBER, "avg_sold_usd": 1704.0, "quantity_sold": 304}
    assert (latest["GeForce RTX 3060 12 GB"]["gpu_name"], latest["GeForce RTX 3060 12 GB"]["avg_sold_usd"]) == (
        "GeForce RTX 3060", 218.0)
    # The same model and month from two sources: the one with more sales (900 against 765).
    assert (latest["GeForce RTX 3090"]["source"], latest["GeForce RTX 3090"]["avg_sold_usd"]) == ("other-index", 650.0)
    assert latest["Radeon RX 6700"]["month"] == OCTOBER  # "Radeon RX 6700 10GB"


# --------------------------------------------------------------------------- price_history

def test_the_index_is_its_own_kind_in_price_history_and_never_an_own_median(con, points):
    for model in ("GeForce RTX 3090", "GeForce RTX 4090"):
        con.execute("INSERT INTO gpus (model, vendor, released, desktop_usable, framework_supported) "
                    "VALUES (?, 'NVIDIA', true, true, true)", [model])
        con.execute("INSERT INTO perf VALUES (?, 'fp16', 'bench', 1.0, 'measured', 'GeForce RTX 3090', true, 3, NULL, "
                    "NULL, now())", [model])
    as_of = date(2023, 10, 31)
    load.load_listings(con, [_sold(f"a{i}", "GeForce RTX 3090", p, as_of - timedelta(days=3))
                             for i, p in enumerate([900, 910, 920])])

    def materialize():
        load.materialize_day(con, as_of, precision="fp16", reference="GeForce RTX 3090", window_days=30, min_count=3)
        return (con.execute("SELECT * FROM prices_daily ORDER BY ALL").fetchall(),
                con.execute("SELECT * FROM ranking_daily ORDER BY ALL").fetchall())

    before = materialize()
    load_price_index(con, points, LOADED)
    after = materialize()
    # The own prices are untouched; the RTX 4090, with an index month but no own observation, is ranked at
    # its index price (kind 'index', the newest month complete on the day), the RTX 3090 at its own median.
    assert after[0] == before[0] and [r[2] for r in before[1]] == ["GeForce RTX 3090"]
    ranked = {r["model"]: r for r in (dict(zip([d[0] for d in con.description], row)) for row in
                                      con.execute("SELECT * FROM ranking_daily").fetchall())}
    assert (ranked["GeForce RTX 3090"]["price_kind"], ranked["GeForce RTX 3090"]["price_usd"]) == ("sold", 910.0)
    index = ranked["GeForce RTX 4090"]
    assert (index["price_kind"], index["price_as_of"], index["price_source"]) == (
        "index", date(2023, 9, 1), "tomshardware-ebay-index")
    assert con.execute("SELECT count(*) FROM price_observations WHERE kind NOT IN ('sold', 'asking')").fetchone() == (0,)

    kinds = dict(con.execute("SELECT price_kind, count(*) FROM price_history GROUP BY ALL").fetchall())
    assert kinds == {"sold": 1, "index": 1012}
    assert con.execute("SELECT as_of, price_usd, price_n FROM price_history WHERE price_kind = 'index' "
                       "AND model = 'GeForce RTX 3090' ORDER BY as_of DESC LIMIT 1").fetchone() == (OCTOBER, 704.0, 765)
    assert con.execute("SELECT count(*) FROM (SELECT as_of, model, price_kind FROM price_history "
                       "GROUP BY ALL HAVING count(*) > 1)").fetchone() == (0,)
    # The feed's price drops and the report's chart read the own kinds only.
    _, history = feed_inputs(con)
    assert {h["price_kind"] for h in history} == {"sold"}


def test_an_index_price_is_named_by_the_label_its_source_declares(con):
    """A second price index needs no edit of the shared rules to be named: its source's declared label
    reaches every output's words through the sources table (the registry writes it each run)."""
    from gpuvalue.models.price_age import index_price_words
    from gpuvalue.warehouse import queries
    from gpuvalue.warehouse.outputs import export
    from gpuvalue.models.price_age import dated_price_basis

    con.execute("INSERT INTO gpus (model, vendor, released, desktop_usable, framework_supported) "
                "VALUES ('GeForce RTX 4090', 'NVIDIA', true, true, true)")
    con.execute("INSERT INTO perf VALUES ('GeForce RTX 4090', 'fp16', 'bench', 1.0, 'measured', 'GeForce RTX 4090', "
                "true, 3, NULL, NULL, now())")
    load_price_index(con, [_point("RTX 4090", "GeForce RTX 4090", 1500, OCTOBER, qty=40)], LOADED)
    as_of = date(2023, 11, 30)
    load.materialize_day(con, as_of, precision="fp16", reference="GeForce RTX 4090", window_days=30, min_count=3)

    def shown() -> list[str]:
        """The words of `rank` and `recommend`, of the exports and of the feed (the last adds ", stale")."""
        (row,) = queries.ranking_rows(con, as_of=as_of, top=None, desktop_only=False)
        (exported,) = export.ranking_rows(con, as_of)
        (_, fed), = feed_inputs(con)[0].items()
        return [index_price_words(row), dated_price_basis(exported),
                describe_price(fed[0]).removesuffix(", stale")]

    # Before any run has described the source: its registry name.
    assert shown() == ["index price of 2023-10 (other-index, average of 40 sold)"] * 3
    queries.upsert_source_catalog(con, [{"name": "other-index", "kind": "price_index", "export_kind": "price_index",
                                         "attribution": "Other", "licence": "none", "label": "Other eBay index"}])
    assert shown() == ["index price of 2023-10 (Other eBay index, average of 40 sold)"] * 3


def test_an_index_of_asking_prices_is_compared_with_the_own_asking_prices_and_raises_no_sold_alarm(con):
    """A monthly report's best deal (the mean of the 3 cheapest asking prices) beside the own listings of
    its month: compared with the own asking prices, so a buyer sees where the two disagree."""
    report = PriceIndexPoint(source="report-index", gpu_name="RTX 3070", model="GeForce RTX 3070", match_reason="t",
                             month=OCTOBER, avg_sold_usd=60.0, quantity_sold=None, prices_averaged=3,
                             published=date(2023, 11, 1), table="page.tsx")
    load_price_index(con, [report], LOADED)
    day = date(2023, 10, 14)
    rows = [_sold(f"f{i}", "GeForce RTX 3070", p, day, sold=False) for i, p in enumerate([100, 100, 100])]
    rows += [_sold(f"g{i}", "GeForce RTX 3070", p, day) for i, p in enumerate([300, 300, 300])]  # sold: not its kind
    load.load_listings(con, rows)
    got = con.execute("SELECT model, own_kind, own_n, own_median_usd, round(rel_diff, 4) FROM price_index_vs_own").fetchall()
    assert got == [("GeForce RTX 3070", "asking", 3, 100.0, 0.6667)]
    assert con.execute("SELECT prices_averaged FROM price_index_monthly").fetchone() == (3,)
    assert price_index_alarms(con) == []  # the alarms watch indexes of sold prices
