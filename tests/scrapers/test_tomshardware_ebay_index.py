"""Tom's Hardware's eBay price index, on the published files: the time series the source reads,
the 50 article tables it must agree with, which month each price is for, the cells that are not
what their column says, the names that must not land on a wrong model, and garbage."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.index_matching import match_points, match_table
from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import tomshardware_ebay_index as index

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
ROOT = FIXTURES / "prices" / "tomshardware_ebay_monthly"
URL = index.TIME_SERIES_URL
FUZZ = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _month(folder: str) -> date:
    return date(int(folder[:4]), int(folder[5:7]), 1)


@pytest.fixture(scope="module")
def series() -> list:
    """The time series as the source parses it, then matched as the enrich stage matches it."""
    return match_points(index.parse_time_series((ROOT / index.TIME_SERIES).read_bytes(), URL), index.NAMING)


@pytest.fixture(scope="module")
def tables() -> dict[str, list]:
    out = {}
    for path in sorted(ROOT.glob("data/*/table_*.csv")):
        name = f"data/{path.parent.name}/{path.name}"
        out[name] = match_points(index.parse_article_table(path.read_bytes(), f"file:{name}",
                                                           published=_month(path.parent.name), table=name),
                                 index.NAMING)
    return out


def _by_name(points, published: date) -> dict:
    return {p.gpu_name: p for p in points if p.published == published}


# --------------------------------------------------------------------------- the published files

def test_every_priced_row_of_the_time_series_is_a_point(series):
    assert len(series) == 1055  # of 1,066 rows: 11 carry no average of sales
    assert min(p.month for p in series) == date(2021, 10, 1) and max(p.month for p in series) == date(2023, 10, 1)
    assert {p.published for p in series} == {_month(d.name) for d in (ROOT / "data").iterdir()}
    assert {p.source for p in series} == {index.NAME} and {p.table for p in series} == {"gpu_time_series.csv"}
    p = _by_name(series, date(2021, 10, 1))["GeForce RTX 3090"]
    assert (p.avg_sold_usd, p.quantity_sold) == (2737.0, 1463)  # "$2,737", quoted for its comma
    assert _by_name(series, date(2023, 11, 1))["Radeon RX 5500 XT 4GB"].avg_sold_usd == 72.0


def test_the_time_series_equals_the_fifty_article_tables(series, tables):
    """The time series is the tables' GPU, first price and quantity columns, row for row; with the
    month each table's header names, it also carries the same months."""
    assert len(tables) == 50
    from_tables = [p for points in tables.values() for p in points]

    def rows(points):  # an article's two tables each list their own names (listed_beside); the series, all
        return sorted((p.model_dump(exclude={"table", "listed_beside"}) for p in points),
                      key=lambda r: (r["published"], r["gpu_name"]))

    assert rows(from_tables) == rows(series)
    assert len({(p.published, p.gpu_name) for p in from_tables}) == len(from_tables) == len(series)


def test_each_header_names_the_month_its_prices_are_for(tables):
    """The article's own month everywhere but November 2023, whose tables hold "October eBay Price"
    (there is no October article): the exception the time series parser carries, derived here."""
    reports = {}
    for name, points in tables.items():
        published = _month(name.split("/")[1])
        (month,) = {p.month for p in points}
        if month != published:
            reports[published] = month
    assert reports == index.ARTICLE_REPORTS == {date(2023, 11, 1): date(2023, 10, 1)}


def test_the_november_2023_article_reports_october(series):
    p = _by_name(series, date(2023, 11, 1))["GeForce RTX 4090"]
    assert (p.month, p.avg_sold_usd, p.quantity_sold) == (date(2023, 10, 1), 1704.0, 304)
    assert _by_name(series, date(2023, 9, 1))["GeForce RTX 4090"].month == date(2023, 9, 1)
    assert not [p for p in series if p.month == date(2023, 11, 1)]


def test_avg_ebay_price_is_the_articles_own_month(series):
    """The early articles' "Avg eBay Price" names no month: the next article's "Aug eBay Price"
    column repeats August 2022's prices, so the column is the article's own month."""
    rows = []
    for path in sorted((ROOT / "data" / "2022-09").glob("table_*.csv")):
        rows += list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    august = _by_name(series, date(2022, 8, 1))
    assert {r["GPU"]: float(r["Aug eBay Price"].strip("$").replace(",", "")) for r in rows if r["GPU"] in august} == \
        {name: p.avg_sold_usd for name, p in august.items()}
    assert {p.month for p in august.values()} == {date(2022, 8, 1)}


def test_a_table_whose_price_column_repeats_last_months_label(tables):
    """February 2023, second table: "Jan eBay Price" then "Jan eBay Price.1". The first column is
    February's (the first table says "Feb eBay Price"; the second column is January's prices)."""
    header = (ROOT / "data/2023-02/table_1.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header.startswith("GPU,Jan eBay Price,QTY Sold,Jan eBay Price.1")
    points = tables["data/2023-02/table_1.csv"]
    assert {p.month for p in points} == {date(2023, 2, 1)}
    january = {p.gpu_name: p.avg_sold_usd for p in tables["data/2023-01/table_1.csv"]}
    rows = list(csv.DictReader(io.StringIO((ROOT / "data/2023-02/table_1.csv").read_text(encoding="utf-8"))))
    assert {r["GPU"]: float(r["Jan eBay Price.1"].strip("$")) for r in rows} == january


# --------------------------------------------------------------------------- cells that are not what their column says

def test_rows_without_an_average_of_sales_are_skipped(series):
    kept = {(p.gpu_name, p.published) for p in series}
    no_price = [("Intel Arc A770 8GB", date(2023, 2, 1)), ("Intel Arc A770 8GB", date(2023, 5, 1)),  # "—", "-"
                ("GeForce RTX 4060", date(2023, 6, 1)), ("Radeon RX 6700", date(2022, 9, 1)),        # "—", ""
                ("Intel Arc A580", date(2023, 11, 1))]
    list_price_over_no_sales = [("Radeon RX 6700 10GB", date(2022, 10, 1)), ("Radeon RX 6700 10GB", date(2022, 11, 1)),
                                ("Radeon RX 6650 XT", date(2022, 5, 1))]  # "$330", 0 sold
    assert not kept & set(no_price + list_price_over_no_sales)
    assert ("Radeon RX 6700 10GB", date(2022, 12, 1)) in kept


def test_a_dollar_amount_in_the_quantity_column_is_no_count(series):
    p = _by_name(series, date(2022, 11, 1))["GeForce RTX 4080"]
    assert (p.avg_sold_usd, p.quantity_sold) == (1503.0, None)  # QTY Sold "$175"


# --------------------------------------------------------------------------- names to catalog models

@pytest.mark.parametrize(("name", "model", "reason"), [
    ("GeForce RTX 3090", "GeForce RTX 3090", "matched: 3090"),
    ("Radeon RX 6800 XT", "Radeon RX 6800 XT", "matched: 6800 xt"),
    ("GeForce RTX 3060 12GB", "GeForce RTX 3060 12 GB", "matched: 3060"),
    # The matcher documents bare 3060 -> the 12 GB launch card (the 8 GB came 21 months later).
    ("GeForce RTX 3060", "GeForce RTX 3060 12 GB", "matched: 3060 (launch variant: the index names no memory)"),
    ("GeForce RTX 3080", "GeForce RTX 3080", "matched: 3080"),
    ("GeForce RTX 3080 12GB", "GeForce RTX 3080 12 GB", "matched: 3080"),
    ("GeForce RTX 4060 Ti 16GB", "GeForce RTX 4060 Ti 16 GB", "matched: 4060 ti"),
    # The catalog's 4060 Ti 8 GB and 16 GB launched the same day: the matcher's tie-break (larger
    # memory) would price the 8 GB card sold in May-July 2023 as the 16 GB one.
    ("GeForce RTX 4060 Ti", None, "ambiguous: GeForce RTX 4060 Ti names no memory; GeForce RTX 4060 Ti 16 GB and "
                                  "GeForce RTX 4060 Ti 8 GB launched together"),
    ("Intel Arc A770 16GB", "Arc A770", "matched: a770"),
    ("Intel Arc A770 8GB", None, "not in catalog: Intel Arc A770 8GB (the catalog's Arc A770 has 16 GB)"),
    ("Radeon RX 5500 XT 4GB", "Radeon RX 5500 XT", "matched: 5500 xt"),
    ("Radeon RX 5500 XT 8GB", None, "not in catalog: 5500 xt 8 gb"),
    ("Radeon RX 6700 10GB", "Radeon RX 6700", "matched: 6700"),
    ("GeForce GTX 1650", "GeForce GTX 1650", "matched: 1650"),
    ("GeForce GTX 1650 GDDR6", None, "not in catalog: GeForce GTX 1650 GDDR6 (gddr6 is a revision of GeForce GTX 1650)"),
])
def test_index_names_map_to_exactly_their_catalog_model_or_none(series, name, model, reason):
    assert {(p.model, p.match_reason) for p in series if p.gpu_name == name} == {(model, reason)}


def test_two_names_of_one_article_never_share_a_model(series):
    for published in {p.published for p in series}:
        models = [p.model for p in series if p.published == published and p.model]
        assert len(models) == len(set(models)), published


def test_a_bare_name_loses_to_a_sibling_listed_with_its_memory():
    got = match_table(["Radeon RX 6700", "Radeon RX 6700 10GB"], index.NAMING)
    assert got["Radeon RX 6700 10GB"] == ("Radeon RX 6700", "matched: 6700")
    assert got["Radeon RX 6700"] == (None, "ambiguous: Radeon RX 6700 names no memory; Radeon RX 6700 is listed as "
                                           "'Radeon RX 6700 10GB' in the same article")


def test_match_counts(series):
    matched = [p for p in series if p.model]
    assert (len(matched), len({p.model for p in matched})) == (1012, 53)
    assert {p.gpu_name for p in series if p.model is None} == {
        "GeForce RTX 4060 Ti", "Intel Arc A770 8GB", "Radeon RX 5500 XT 8GB", "GeForce GTX 1650 GDDR6"}


# --------------------------------------------------------------------------- garbage

GOOD = b"GPU,eBay Price,QTY Sold,Month\nGeForce RTX 3090,\"$1,770\",999,April 2022\n"


@pytest.mark.parametrize("body", [
    b"", b"\n\n", b"GPU,eBay Price,QTY Sold,Month\n", b"\xff\xfe\x00garbage", b"<html><body>404</body></html>",
    b"GPU,Price,Sold,When\nGeForce RTX 3090,$1,999,April 2022\n",           # another header
    GOOD + b"GeForce RTX 3080,$abc,12,April 2022\n",                         # not a price
    GOOD + b"GeForce RTX 3080,$0,12,April 2022\n",                           # not a plausible one
    GOOD + b"GeForce RTX 3080,$900,twelve,April 2022\n",                     # not a count
    GOOD + b"GeForce RTX 3080,$900,12,Smarch 2022\n",                        # not a month
    GOOD + b"GeForce RTX 3080,$900,12\n",                                    # a cell short
    GOOD + b",$900,12,April 2022\n",                                         # no name
    GOOD + b"GeForce RTX 3090,$900,12,April 2022\n",                         # one card twice in an article
    GOOD.replace(b"April 2022", b"April 2022\",\"x"),                        # unbalanced quotes
])
def test_garbage_is_a_parse_error(body):
    with pytest.raises(ParseError):
        index.parse_time_series(body, URL)


def test_the_smallest_good_file_parses_to_what_it_says_matched_to_nothing():
    (p,) = index.parse_time_series(GOOD, URL)
    assert (p.gpu_name, p.model, p.match_reason, p.month, p.avg_sold_usd, p.quantity_sold) == (
        "GeForce RTX 3090", None, None, date(2022, 4, 1), 1770.0, 999)
    assert p.listed_beside == ("GeForce RTX 3090",)  # the names of its article, for the enrich stage
    (matched,) = match_points([p], index.NAMING)
    assert matched.model == "GeForce RTX 3090"


def test_a_bare_name_loses_to_a_sibling_its_article_lists_even_without_a_price():
    body = GOOD + b"Radeon RX 6700,$300,12,April 2022\nRadeon RX 6700 10GB,-,,April 2022\n"
    points = match_points(index.parse_time_series(body, URL), index.NAMING)
    assert [p.gpu_name for p in points] == ["GeForce RTX 3090", "Radeon RX 6700"]
    assert points[1].model is None and points[1].match_reason.startswith("ambiguous")


@pytest.mark.parametrize("header", [
    "GPU,Foo eBay Price,QTY Sold,Gross Sales",                        # names no month
    "GPU,Mar eBay Price,QTY Sold,Jan eBay Price,Monthly Change",      # previous column is not the month before
    "GPU,Price,QTY Sold",                                             # no price column
    "Card,Avg eBay Price,QTY Sold",
])
def test_a_table_header_that_names_no_consistent_month_is_a_parse_error(header):
    body = f"{header}\nGeForce RTX 3090,$900,12{',x' * (header.count(',') - 2)}\n".encode()
    with pytest.raises(ParseError):
        index.parse_article_table(body, "file:t.csv", published=date(2023, 3, 1), table="t.csv")


@FUZZ
@given(st.binary(max_size=2000))
def test_random_bytes_are_a_parse_error_or_points(body):
    try:
        index.parse_time_series(body, URL)
    except ParseError:
        pass


@FUZZ
@given(st.integers(min_value=0, max_value=(ROOT / index.TIME_SERIES).stat().st_size), st.binary(max_size=20))
def test_a_cut_or_spliced_file_is_a_parse_error_or_points(cut, tail):
    body = (ROOT / index.TIME_SERIES).read_bytes()[:cut] + tail
    try:
        points = index.parse_time_series(body, URL)
    except ParseError:
        return
    assert all(p.avg_sold_usd > 0 for p in points)


# --------------------------------------------------------------------------- the source declaration

def test_replay_records_the_time_series_under_the_url_the_live_fetch_requests():
    (recording,) = list(index._replay(FIXTURES))
    page = recording.page
    assert page.url == index.TIME_SERIES_URL == (
        "https://raw.githubusercontent.com/buttke/ebay-2021-2023-gpu-prices/"
        "be9204729cfcd872fc43663fac3c473de26adedd/gpu_time_series.csv")
    assert page.fetched_at == datetime(2024, 12, 4, tzinfo=timezone.utc) and page.source == index.NAME
    assert recording.provenance.startswith("buttke/ebay-2021-2023-gpu-prices@be9204729cfcd872fc43663fac3c473de26adedd:")
    parsed = index._parse(page)
    assert (parsed.source, parsed.kind, len(parsed.records)) == (index.NAME, "price_index", 1055)
    assert all((FIXTURES / f).is_file() for f in index.SOURCE.fixtures)
    assert index.SOURCE.kind == "price_index" and "none stated" in index.SOURCE.licence


def test_fetch_asks_for_the_pinned_time_series_once():
    asked = []

    class Client:
        def get(self, url, *, source):
            asked.append((url, source))
            return FetchedPage(source=source, url=url, status=200, fetched_at=datetime.now(timezone.utc),
                               sha256="0" * 64, body=GOOD, content_type="text/csv")

    fetched = index._fetch(index.FetchContext(client=Client(), settings=None, replay=False))
    assert asked == [(index.TIME_SERIES_URL, index.NAME)] and len(fetched.pages) == 1
