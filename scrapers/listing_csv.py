"""Import historical sold listings from CSV files.

Old sold prices cannot be scraped any more (eBay shows about 90 days), so history comes
from CSV exports others made of eBay's sold search pages. The expected columns are those
of such exports: ``title,subtitle,price,shipping,total_price,sold_date,link``; only
``title``, ``price`` and ``sold_date`` are required. An optional ``currency`` column
overrides the default USD, and an optional ``condition`` column gives eBay's condition ("Used",
"Pre-Owned"), which the subtitle's first part gives where there is none.
"""

from __future__ import annotations

import csv
import hashlib
import io
import itertools
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from gpuvalue.models import plausible_price
from gpuvalue.models.conditions import classify_condition
from gpuvalue.models.fx import to_usd
from gpuvalue.models.records import Listing
from gpuvalue.models.text_safety import clean_text
from gpuvalue.scrapers.ebay_links import item_id_from_link, link_without_query, marketplace_of
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.money import parse_price

REQUIRED_COLUMNS = ("title", "price", "sold_date")
FIRST_SALE_YEAR = 1995
_NEW_LISTING_PREFIX = re.compile(r"^\s*(?:New Listing|Neues Angebot)\s*", re.IGNORECASE)
_INVISIBLE = dict.fromkeys(map(ord, "\u200e\u200f\u200b\ufeff"), None)
_CURRENCY = re.compile(r"^[A-Z]{3}$")
# The outer bounds of every card's plausible price (models/plausible_price.py): a row outside them is left
# out before it is matched; once matched, its card's own range holds it out of the prices (listing_rows).
MAX_PRICE_USD, MIN_PRICE_USD = plausible_price.MAX_PRICE_USD, plausible_price.MIN_PRICE_USD


@dataclass
class CsvImport:
    """The listings read from an export, and the rows left out with the reason for each."""

    listings: list[Listing] = field(default_factory=list)
    rejected: list[tuple[int, str]] = field(default_factory=list)  # (CSV row number, reason)


def clean_title(raw: str) -> str:
    """Title as a person reads it: no glued "New Listing" badge, no invisible marks."""
    # Only a non-ASCII title can hold the marks, and translate is slow: most titles are ASCII.
    text = raw if raw.isascii() else raw.translate(_INVISIBLE).replace("\xa0", " ")
    text = clean_text(text)  # no terminal escapes (ESC [ 31 m) or other controls a seller typed
    text = _NEW_LISTING_PREFIX.sub("", text)
    return " ".join(text.split())


# nan, inf and exponents are read as numbers so that the row is left out with its reason ("price 'nan'
# is not a finite number", "price $1,000,000,000 is above $100,000"), not refused as unreadable.
_PLAIN_AMOUNT = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,2})?")
_FLOAT_WORDS = re.compile(r"[+-]?(?:nan|inf|infinity|[0-9]+(?:\.[0-9]+)?e[+-]?[0-9]+)", re.I)


def _delimiter(text: str) -> str:
    """Semicolons where the header has them and no comma (spreadsheets in locales with a decimal
    comma export so), tabs likewise; else commas."""
    header = text.split("\n", 1)[0]
    for other in (";", "\t"):
        if other in header and "," not in header:
            return other
    return ","


_SHIPPING_WORDS = re.compile(r"\b(shipping|postage|delivery)\b|\+", re.I)


def _shipping_words(cell: str) -> str:
    """eBay's own shipping wording as a number: "Free shipping" is 0, "+$9.90 shipping" 9.90."""
    text = (cell or "").strip()
    if re.fullmatch(r"(free)(\s+(shipping|postage|delivery))?", text, re.I):
        return "0"
    return _SHIPPING_WORDS.sub("", text).strip()


def _money_cell(cell: str, column: str, row_number: int, source: str, *, required: bool,
                currency: str | None) -> tuple[float | None, str | None]:
    """(amount, the currency the cell itself names or None): a price cell as people write it, read by
    the one money parser (``scrapers/money.py``): decimal commas ("499,99", "1.234,56"), thousands
    separators, and the currency beside it ("US $1,200.00", "1 234,56 zł", "EUR 12,50")."""
    text = (cell or "").strip()
    if not text:
        if required:
            raise ParseError(source, None, f"row {row_number}: empty {column}")
        return None, None
    # A person writes neither "1_000" nor other scripts' digits ("١٠٠٠") in a price.
    if "_" in text or any(ch.isdigit() and not "0" <= ch <= "9" for ch in text):
        raise ParseError(source, None, f"row {row_number}: bad {column} {cell!r:.40} (a number is written "
                                       "with the digits 0-9, without underscores)")
    if _PLAIN_AMOUNT.fullmatch(text):  # most cells of an export ("600", "10.9"): no rule to apply
        return float(text), None
    if _FLOAT_WORDS.fullmatch(text):
        return float(text), None  # negative, nan and inf too: the caller leaves such a row out with its reason
    money = parse_price(text, default=currency, signed=True)
    if money is None:
        if re.search(r"[0-9],[0-9]", text) and re.fullmatch(r"[+-]?[0-9][0-9.,]*", text):
            raise ParseError(source, None, f"row {row_number}: bad {column} {cell!r:.40} (a comma that neither "
                                           "groups thousands nor marks decimals)")
        raise ParseError(source, None, f"row {row_number}: bad {column} {cell!r:.40}")
    if money.written is not None and money.currency is None:
        raise ParseError(source, None, f"row {row_number}: {column} {cell!r:.40} says {money.written!r}, which names "
                                       "no one currency: give the row a currency column (SEK, NOK, CAD, ...)")
    return money.amount, (money.currency if money.written is not None else None)


def _sold_at(cell: str, row_number: int, source: str) -> datetime:
    """Midnight UTC of the sold date: the exports keep only the day."""
    text = (cell or "").strip()
    try:
        if len(text) == 10:
            return datetime.combine(date.fromisoformat(text), datetime.min.time(), tzinfo=UTC)
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise ParseError(source, None, f"row {row_number}: bad sold_date {cell!r:.40}") from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _row_hash(row: dict[str, str]) -> str:
    """Stable id for a row without an item link: the same row always gets the same id."""
    key = "\x1f".join(f"{name}={row.get(name) or ''}" for name in sorted(row))
    return "sha1:" + hashlib.sha1(key.encode("utf-8")).hexdigest()[:16]


def _condition_from_subtitle(subtitle: str | None) -> str | None:
    """The subtitle's first part when it is a condition ("Brand New · ZOTAC · 10 GB")."""
    if not subtitle:
        return None
    first = subtitle.split("·")[0].strip()
    # Sellers also write free text there ("Unopened, Sealed, Game code included"); eBay's
    # condition names are short and comma-free.
    if not first or "," in first or len(first.split()) > 5:
        return None
    return first if classify_condition(first) != "unknown" else None


def parse_listing_csv(text: str, source: str, imported_at: datetime, *, url: str | None = None) -> list[Listing]:
    """Sold listings from an export; every row is a sale, ``seen_at`` is the import time."""
    return read_listing_csv(text, source, imported_at, url=url).listings


def read_listing_csv(text: str, source: str, imported_at: datetime, *, url: str | None = None) -> CsvImport:
    """Like ``parse_listing_csv``, and also the rows left out for an absurd price.

    ``url`` names the file in errors. A malformed file raises ParseError; a row whose price or
    shipping is not a finite number or below zero, or whose price plus shipping in USD is above
    ``MAX_PRICE_USD`` or below ``MIN_PRICE_USD``, is left out with its reason.
    """
    if not isinstance(text, str):
        raise ParseError(source, url, "CSV text must be str")
    if "\x00" in text:
        raise ParseError(source, url, "binary data, not CSV text")
    result = CsvImport()
    for batch in iter_listing_csv(io.StringIO(text, newline=""), source, imported_at, url=url, batch_rows=None):
        result.listings.extend(batch.listings)
        result.rejected.extend(batch.rejected)
    return result


DEFAULT_BATCH_ROWS = 20_000
_CACHE_MOST = 50_000


def iter_listing_csv(lines: Iterable[str], source: str, imported_at: datetime, *, url: str | None = None,
                     batch_rows: int | None = DEFAULT_BATCH_ROWS) -> Iterator[CsvImport]:
    """``read_listing_csv`` over lines as they are read (a file opened with ``newline=""``), in batches
    of ``batch_rows`` rows (None: one batch): an import's memory stays that of one batch, whatever the
    file's size. A ParseError can come with any batch; the caller keeps nothing of an import it stops."""
    try:
        yield from _iter_listing_csv(lines, source, imported_at, batch_rows)
    except ParseError as exc:
        if url is None or exc.url is not None:
            raise
        raise ParseError(exc.source, url, exc.what) from None


def _without_nul(lines: Iterable[str], source: str) -> Iterator[str]:
    for line in lines:
        if "\x00" in line:
            raise ParseError(source, None, "binary data, not CSV text")
        yield line


def _iter_listing_csv(lines: Iterable[str], source: str, imported_at: datetime,
                      batch_rows: int | None) -> Iterator[CsvImport]:
    lines = _without_nul(lines, source)
    first = next(lines, "").lstrip("\ufeff")
    reader = csv.DictReader(itertools.chain([first], lines), delimiter=_delimiter(first))
    try:
        header = reader.fieldnames
    except csv.Error as exc:
        raise ParseError(source, None, f"unreadable CSV header: {exc}") from None
    if not header:
        raise ParseError(source, None, "empty CSV: no header")
    # "Sold Date" and "sold_date" name one column, as spreadsheets write headers.
    columns = {"_".join((name or "").strip().lower().split()): name for name in header}
    missing = [name for name in REQUIRED_COLUMNS if name not in columns]
    if missing:
        raise ParseError(source, None, f"CSV lacks required column(s): {', '.join(missing)}")

    result = CsvImport()
    listings = result.listings
    in_batch = 0
    # An export repeats its dates, currencies and subtitles ("Pre-Owned · ZOTAC · 24 GB") row after
    # row: each is read once an import.
    sold_on: dict[str, datetime] = {}
    usd_per_unit: dict[tuple[str, int, int], float | None] = {}
    conditions: dict[str | None, str | None] = {}
    stated_conditions: dict[str | None, str | None] = {}
    try:
        for row_number, raw in enumerate(reader, start=2):
            if batch_rows is not None and in_batch >= batch_rows:
                yield result
                result, in_batch = CsvImport(), 0
                listings = result.listings
                for cache in (sold_on, conditions, stated_conditions):
                    if len(cache) > _CACHE_MOST:  # a file of distinct values: the caches stay a batch's size
                        cache.clear()
            in_batch += 1
            if None in raw:
                raise ParseError(source, None, f"row {row_number}: more cells than columns")
            row = {key: (raw.get(original) or "") for key, original in columns.items()}
            if not any(value.strip() for value in row.values()):
                continue
            title = clean_title(row["title"])
            if not title:
                raise ParseError(source, None, f"row {row_number}: empty title")
            stated_currency = (row.get("currency") or "").strip().upper() or None
            price, written = _money_cell(row["price"], "price", row_number, source, required=True,
                                         currency=stated_currency)
            assert price is not None  # a required cell is a number or the row is refused above
            shipping, shipped_in = _money_cell(_shipping_words(row.get("shipping", "")), "shipping", row_number,
                                               source, required=False, currency=stated_currency or written)
            sold_at = sold_on.get(row["sold_date"])
            if sold_at is None:
                sold_at = sold_on[row["sold_date"]] = _sold_at(row["sold_date"], row_number, source)
            # A sale cannot be dated after the import: both days in UTC, as listings are stamped (a sale at
            # 01:00+05:00 tomorrow is 20:00 UTC today).
            if sold_at.astimezone(UTC).date() > imported_at.astimezone(UTC).date():
                raise ParseError(source, None, f"row {row_number}: sold_date {row['sold_date'].strip()!r:.40} is in the future")
            if sold_at.year < FIRST_SALE_YEAR:  # 0001-01-01: a placeholder, which ranked as a price 2025 years old
                raise ParseError(source, None, f"row {row_number}: sold_date {row['sold_date'].strip()!r:.40} is before "
                                               f"{FIRST_SALE_YEAR}, when eBay began")
            # The price as written ("US $1,200.00", "1 234 zł") names its currency more closely than a
            # column does (a converted eBay price keeps its symbol); the column, then USD, where it names none.
            currency = written or stated_currency or shipped_in or "USD"
            if not _CURRENCY.match(currency):
                raise ParseError(source, None, f"row {row_number}: bad currency {currency!r:.20}")
            rate_key = (currency, sold_at.year, sold_at.month)  # to_usd's rates are monthly
            if rate_key not in usd_per_unit:
                conversion = to_usd(1.0, currency, sold_at.date())
                usd_per_unit[rate_key] = None if conversion is None else conversion.rate
            absurd = _absurd_price(price, shipping, currency, usd_per_unit[rate_key], row, sold_at.date())
            if absurd:
                result.rejected.append((row_number, absurd))
                continue
            link = (row.get("link") or "").strip()
            subtitle = " ".join(row.get("subtitle", "").replace("\xa0", " ").split()) or None
            if subtitle not in conditions:
                conditions[subtitle] = _condition_from_subtitle(subtitle)
            # A condition column (eBay's own words: "Used", "Pre-Owned") is read first; the subtitle's
            # first part where it has none, or none the rules can read.
            stated = " ".join(row.get("condition", "").split()) or None
            if stated not in stated_conditions:
                stated_conditions[stated] = stated if stated and classify_condition(stated) != "unknown" else None
            condition = stated_conditions[stated] or conditions[subtitle]
            listings.append(
                Listing(
                    source=source,
                    listing_id=item_id_from_link(link) or _row_hash(row),
                    title=title,
                    subtitle=subtitle,
                    price=price,
                    currency=currency,
                    shipping=shipping,
                    condition=condition,
                    sold=True,
                    ended=True,
                    sold_at=sold_at,
                    seen_at=imported_at,
                    url=link_without_query(link) if link.startswith("http") else None,
                    marketplace=marketplace_of(link) if link else None,
                )
            )
    except csv.Error as exc:
        raise ParseError(source, None, f"malformed CSV near row {reader.line_num}: {exc}") from None
    yield result


def _absurd_price(price: float, shipping: float | None, currency: str, usd_per_unit: float | None,
                  row: dict[str, str], sold_on: date) -> str | None:
    """Why a row's price cannot be a GPU's, or None (``usd_per_unit``: ``to_usd``'s rate for the
    currency on the day of the sale, whose amount in USD is the amount times it; None for a
    currency without a rate: such a sale has no USD price, so it could never count)."""
    for column, value in (("price", price), ("shipping", shipping)):
        if value is not None and not math.isfinite(value):
            return f"{column} {row[column].strip()!r:.40} is not a finite number"
        if value is not None and value < 0:
            return f"{column} {row[column].strip()!r:.40} is below zero"
    total = price + (shipping or 0.0)
    if usd_per_unit is None:
        return f"no USD exchange rate for currency {currency!r:.20} in {sold_on:%Y-%m}"
    usd = float(total) * usd_per_unit
    if usd > MAX_PRICE_USD:
        shown = f"${_amount(total)}" if currency == "USD" else f"{_amount(total)} {currency} (${_amount(usd)})"
        return f"price {shown} is above ${MAX_PRICE_USD:,.0f}"
    if usd < MIN_PRICE_USD:  # a cent or nothing: a placeholder or a typo, and it would pull a median down
        shown = f"${total:,.2f}" if currency == "USD" else f"{total:,.2f} {currency} (${usd:,.2f})"
        return f"price {shown} is below ${MIN_PRICE_USD:,.0f}"
    return None


def _amount(value: float) -> str:
    """An amount as a refusal shows it: cents where it has them, so that $100,000.01 is not printed as the
    $100,000 it exceeds, and a short figure for a huge one (1e+308, not 309 digits)."""
    if abs(value) >= 1e12:
        return f"{value:.3g}"
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.2f}"
