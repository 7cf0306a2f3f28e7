"""Tom's Hardware's monthly eBay GPU price index, October 2021 to October 2023.

Each month Tom's Hardware published the average price and count of eBay **sold** listings per
consumer card, after removing junk (box only, pictures, bundles, broken cards). The repository
``buttke/ebay-2021-2023-gpu-prices`` collected the 25 articles' tables (``data/.../table_{0,1}.csv``)
and concatenated them into ``gpu_time_series.csv``; the data stopped there, so the pinned commit
is the whole source.

The source reads the time series: one request, and it equals the 50 tables row for row (the
parser test checks it). Its ``Month`` is the article's month, though, not always the month the
prices are for: the tables' header says that, and only the November 2023 article differs (its
"October eBay Price"; there is no October article). ``ARTICLE_REPORTS`` holds that exception and
the test derives it again from every table's header with ``parse_article_table``.

Names are returned as published, matched to nothing: the enrich stage maps them to catalog models
(``models/index_matching.py``) with this index's naming (``NAMING``), checked against what the index
says about itself, because a wrong model is worse than none. Each point carries the other names of
its article (``listed_beside``), priced or not, so a bare name the article lists beside a variant
("RTX 4060 Ti" beside "RTX 4060 Ti 16GB") is known not to be that variant.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Iterator
from datetime import date, datetime, timezone
from pathlib import Path

from pydantic import ValidationError

from gpuvalue.models.price_index import IndexNaming, PriceIndexPoint
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.archive import sha256_hex
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.money import parse_price
from gpuvalue.scrapers.page_text import page_text
from gpuvalue.scrapers.source import FetchContext, Recording, Source

NAME = "tomshardware-ebay-index"
REPOSITORY = "buttke/ebay-2021-2023-gpu-prices"
COMMIT = "be9204729cfcd872fc43663fac3c473de26adedd"
COMMIT_DATE = datetime(2024, 12, 4, tzinfo=timezone.utc)
TIME_SERIES = "gpu_time_series.csv"
TIME_SERIES_URL = f"https://raw.githubusercontent.com/{REPOSITORY}/{COMMIT}/{TIME_SERIES}"
FIXTURE_DIR = "prices/tomshardware_ebay_monthly"

# An editor's tables list a card's variants apart: the enrich stage checks a name against its model.
NAMING = IndexNaming(names_checked=True)

# Article month -> the month its prices are for, where the two differ (from the tables' header).
ARTICLE_REPORTS = {date(2023, 11, 1): date(2023, 10, 1)}

_TIME_SERIES_HEADER = ["GPU", "eBay Price", "QTY Sold", "Month"]
_MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september",
                "october", "november", "december")
_NO_PRICE = frozenset(["", "-", "\u2013", "\u2014", "n/a"])  # no sales that month
_USD = re.compile(r"^\$\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d{1,2})?$")
_COUNT = re.compile(r"^(\d{1,3}(?:,\d{3})+|\d+)$")
_PRICE_HEADER = re.compile(r"^([A-Za-z]+) eBay Price(?:\.\d+)?$")  # pandas adds ".1" to a repeated label
_MAX_PRICE_USD = 100_000.0


# --------------------------------------------------------------------------- parsers (pure)

def parse_time_series(body: bytes, url: str) -> list[PriceIndexPoint]:
    """``gpu_time_series.csv``: GPU, eBay Price, QTY Sold, Month (the article's month)."""
    rows = _csv_rows(body, url)
    if [cell.strip() for cell in rows[0]] != _TIME_SERIES_HEADER:
        raise ParseError(NAME, url, f"unexpected header {rows[0]!r:.120}, wanted {_TIME_SERIES_HEADER}")
    articles: dict[date, list[tuple[str, str, str]]] = {}
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != 4:
            raise ParseError(NAME, url, f"row {number}: {len(row)} cells, wanted 4")
        published = _month_year(row[3], url, number)
        articles.setdefault(published, []).append((row[0], row[1], row[2]))
    points = []
    for published, article in articles.items():
        month = ARTICLE_REPORTS.get(published, published)
        points += _points(article, month=month, published=published, table=TIME_SERIES, url=url)
    return points


def parse_article_table(body: bytes, url: str, *, published: date, table: str) -> list[PriceIndexPoint]:
    """One article's ``table_{0,1}.csv``: GPU, then the price column whose header names the month the
    prices are for ("Avg eBay Price" in the early articles: the article's own month), QTY Sold, then
    columns that vary by period (gross sales, retail and last month's price, change, FPS/$)."""
    if published.day != 1:
        raise ParseError(NAME, url, f"published must be the first day of a month, not {published}")
    rows = _csv_rows(body, url)
    header = [cell.strip() for cell in rows[0]]
    if len(header) < 3 or header[0] != "GPU" or header[2] != "QTY Sold":
        raise ParseError(NAME, url, f"unexpected header {header!r:.120}")
    month = _header_month(header, published, url)
    article = []
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise ParseError(NAME, url, f"row {number}: {len(row)} cells, wanted {len(header)}")
        article.append((row[0], row[1], row[2]))
    return _points(article, month=month, published=published, table=table, url=url)


# --------------------------------------------------------------------------- cells

def _csv_rows(body: bytes, url: str) -> list[list[str]]:
    text = page_text(body, NAME, url, kind="a CSV file")
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline="")) if any(cell.strip() for cell in row)]
    except csv.Error as exc:
        raise ParseError(NAME, url, f"malformed CSV: {exc}") from None
    if len(rows) < 2:
        raise ParseError(NAME, url, "no rows under the header")
    return rows


def _month_number(word: str) -> int | None:
    """``Sept``, ``Sep``, ``June``, ``October``: a month's name or a prefix of it of 3+ letters."""
    word = word.strip().casefold()
    if len(word) < 3:
        return None
    for number, name in enumerate(_MONTH_NAMES, start=1):
        if name.startswith(word):
            return number
    return None


def _month_year(cell: str, url: str, row: int) -> date:
    parts = cell.split()
    number = _month_number(parts[0]) if len(parts) == 2 else None
    if number is None or not re.fullmatch(r"20\d\d", parts[1]):
        raise ParseError(NAME, url, f"row {row}: bad month {cell!r:.40}")
    return date(int(parts[1]), number, 1)


def _header_month(header: list[str], published: date, url: str) -> date:
    """The month a table's prices are for, from its header, in the year that puts it on or before the
    article. A previous-month column must name the month before; when it repeats the price column's
    own label (the February 2023 article's second table: "Jan eBay Price", "Jan eBay Price.1"), the
    price column is the month after it."""
    current = _PRICE_HEADER.match(header[1])
    if current is None:
        raise ParseError(NAME, url, f"no price column in header {header!r:.120}")
    if current.group(1).casefold() == "avg":
        return published
    previous = next((m for m in map(_PRICE_HEADER.match, header[3:]) if m is not None), None)
    number = _month_number(current.group(1))
    if number is None:
        raise ParseError(NAME, url, f"price column {header[1]!r} names no month")
    if previous is not None and previous.group(1).casefold() == current.group(1).casefold():
        before = _month_number(previous.group(1))
        number = before % 12 + 1 if before is not None else None
        if number is None:
            raise ParseError(NAME, url, f"price column {header[1]!r} names no month")
    month = date(published.year if number <= published.month else published.year - 1, number, 1)
    if previous is not None:
        before = _month_number(previous.group(1))
        if before is None or before % 12 + 1 != month.month:
            raise ParseError(NAME, url, f"header names {header[1]!r} after {previous.group(0)!r}")
    return month


def _usd(cell: str, url: str, name: str) -> float | None:
    text = cell.strip()
    if text.casefold() in _NO_PRICE:
        return None
    money = parse_price(text, decimal=".") if _USD.match(text) else None  # "$1,234.56", always in dollars
    if money is None or money.currency != "USD":
        raise ParseError(NAME, url, f"{name}: bad price {cell!r:.40}")
    value = money.amount
    if not 0 < value < _MAX_PRICE_USD:
        raise ParseError(NAME, url, f"{name}: implausible price {cell!r:.40}")
    return value


def _count(cell: str, url: str, name: str) -> int | None:
    """Units sold; None when the cell holds none. One cell of the index holds a dollar amount
    (RTX 4080, November 2022: "$175"): a price where a count belongs is no count."""
    text = cell.strip()
    if text == "" or _USD.match(text):
        return None
    m = _COUNT.match(text)
    if m is None:
        raise ParseError(NAME, url, f"{name}: bad quantity {cell!r:.40}")
    return int(m.group(1).replace(",", ""))


# --------------------------------------------------------------------------- rows

def _points(rows: Iterable[tuple[str, str, str]], *, month: date, published: date, table: str,
            url: str) -> list[PriceIndexPoint]:
    """One article's rows as points: a row without a price, or with a price over zero sales (the
    card's list price repeated, e.g. RX 6700 10GB in October 2022), is no average of sales."""
    rows = [(" ".join(name.split()), price, quantity) for name, price, quantity in rows]
    names = [name for name, _, _ in rows]
    if not all(names):
        raise ParseError(NAME, url, f"a row of {published:%Y-%m} has no GPU name")
    if len(set(names)) != len(names):
        twice = sorted({n for n in names if names.count(n) > 1})
        raise ParseError(NAME, url, f"{published:%Y-%m} lists {', '.join(twice)} twice")
    listed = tuple(names)
    points = []
    for name, price_cell, quantity_cell in rows:
        price, quantity = _usd(price_cell, url, name), _count(quantity_cell, url, name)
        if price is None or quantity == 0:
            continue
        try:
            points.append(PriceIndexPoint(source=NAME, gpu_name=name, month=month, avg_sold_usd=price,
                                          quantity_sold=quantity, published=published, table=table,
                                          listed_beside=listed))
        except ValidationError as exc:
            raise ParseError(NAME, url, f"{name}: {exc.errors()[0]['msg']}") from None
    return points


# --------------------------------------------------------------------------- source

def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    out.pages.append(ctx.client.get(TIME_SERIES_URL, source=NAME))
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "price_index", records=parse_time_series(page.body, page.url))


def _replay(fixtures: Path) -> Iterator[Recording]:
    body = (fixtures / FIXTURE_DIR / TIME_SERIES).read_bytes()
    page = FetchedPage(source=NAME, url=TIME_SERIES_URL, status=200, fetched_at=COMMIT_DATE, sha256=sha256_hex(body),
                       body=body, content_type="text/csv")
    yield Recording(page, provenance=f"{REPOSITORY}@{COMMIT}:{TIME_SERIES} ({COMMIT_DATE:%Y-%m-%d})")


SOURCE = Source(
    name=NAME,
    kind="price_index",
    attribution="Tom's Hardware, eBay Historical GPU Prices (monthly averages of eBay sold listings, 2021-2023), "
                "as collected in github.com/buttke/ebay-2021-2023-gpu-prices",
    licence="none stated (Tom's Hardware's published tables; the collecting repository has no licence file)",
    label="Tom's Hardware eBay index",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    fixtures=(f"{FIXTURE_DIR}/{TIME_SERIES}",),
    index_naming=NAMING,
)
