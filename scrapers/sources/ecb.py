"""The European Central Bank's euro reference rates, by day, without a key.

Used-market prices come in euros, pounds, Canadian and Australian dollars; a price converts at the
rate of its own day. The ECB publishes one file a business day (``eurofxref-daily.xml``), the last 90
days (``eurofxref-hist-90d.xml``) and every day since 1999 (``eurofxref-hist.xml``), all in one shape:
``Cube time='YYYY-MM-DD'`` holding ``Cube currency='USD' rate='1.1415'``, units per euro. A run reads
the daily file and the 90-day file (``GPUVALUE_ECB_FULL_HISTORY=true``: the whole history instead),
and stores each day's rates as USD per unit in ``fx_rates`` (``models/fx.py``: USD per X is
rate(USD) / rate(X)). A replay reads the two recorded daily files (2025-11-10 and 2026-07-06).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timezone
from pathlib import Path
from xml.etree import ElementTree

from pydantic import BaseModel

from gpuvalue.models.fx import DailyRate, ecb_cross_rates, rate_day_problem
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.bounded import DtdRefused, declares_dtd, xml_root
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, get_page, page_from_file

NAME = "ecb"

_BASE = "https://www.ecb.europa.eu/stats/eurofxref/"
DAILY_URL = _BASE + "eurofxref-daily.xml"
HIST_90D_URL = _BASE + "eurofxref-hist-90d.xml"
HIST_URL = _BASE + "eurofxref-hist.xml"

# The recorded daily files: unmodified copies kept in Qalculate/libqalculate's data folder, replayed
# under raw URLs pinned to their commits (one URL holds one recording), the newest also under the
# ECB's own URL.
_LIBQALCULATE = "Qalculate/libqalculate"
RECORDED = (
    ("24d4a22cb120464b925cc4ae7e4114086b341b49", date(2025, 11, 10), "fx/ecb/eurofxref-daily_2025-11-10.xml"),
    ("87c76400162d5d37dda99d6cbe4d2648352e0dd8", date(2026, 7, 6), "fx/ecb/eurofxref-daily_2026-07-06.xml"),
)
# Bodies above this are refused unread (the whole history is about 4 MB as XML today).
MAX_BODY_BYTES = 64 * 1024 * 1024


def pinned_url(commit: str) -> str:
    return f"https://raw.githubusercontent.com/{_LIBQALCULATE}/{commit}/data/eurofxref-daily.xml"


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def parse_ecb_rates(body: bytes, url: str, fetched_on: date | None = None) -> list[DailyRate]:
    """Every day's rates of an ECB reference-rate file (daily, 90-day or whole history), oldest first,
    as USD per unit of each currency. Raises only ParseError, also for a file that gives a day or a
    currency of a day twice (which one would be the rate?) or a day before the euro or after
    ``fetched_on`` (today by default); rates a day cannot have are refused where they are stored
    (``models/fx.py``'s ``plausible_rates``)."""
    fetched_on = fetched_on or datetime.now(timezone.utc).date()
    if len(body) > MAX_BODY_BYTES:
        raise ParseError(NAME, url, f"{len(body):,} bytes: more than a reference-rate file holds")
    if declares_dtd(body):
        raise ParseError(NAME, url, "a document type declaration: not the ECB's file")
    try:
        root = xml_root(body)
    except DtdRefused:
        raise ParseError(NAME, url, "a document type declaration: not the ECB's file") from None
    except (ElementTree.ParseError, ValueError):
        raise ParseError(NAME, url, "not XML") from None
    if _local(root.tag) != "Envelope":
        raise ParseError(NAME, url, f"root element {_local(root.tag)!r}, not the ECB's gesmes:Envelope")
    days: list[DailyRate] = []
    seen_days = 0
    dated: set[date] = set()
    for cube in root.iter():
        if _local(cube.tag) != "Cube" or "time" not in cube.attrib:
            continue
        try:
            day = date.fromisoformat(cube.attrib["time"])
        except ValueError:
            raise ParseError(NAME, url, f"time {cube.attrib['time']!r:.40} is not a date") from None
        if (problem := rate_day_problem(day, fetched_on)) is not None:
            raise ParseError(NAME, url, problem)
        if day in dated:
            raise ParseError(NAME, url, f"{day} is given twice: one set of rates a day")
        dated.add(day)
        per_euro: dict[str, float] = {}
        for quote in cube:
            code, rate = quote.attrib.get("currency"), quote.attrib.get("rate")
            if _local(quote.tag) != "Cube" or not code or rate is None:
                continue
            try:
                value = float(rate)
            except ValueError:
                raise ParseError(NAME, url, f"{day}: rate {rate!r} of {code} is not a number") from None
            if not (value > 0 and value < float("inf")):
                raise ParseError(NAME, url, f"{day}: rate {rate!r} of {code} is not a rate")
            code = code.strip().upper()
            if code in per_euro:
                raise ParseError(NAME, url, f"{day}: {code[:10]} is given twice: one rate per currency a day")
            per_euro[code] = value
        seen_days += 1
        days.extend(ecb_cross_rates(day, per_euro, NAME))
    if not seen_days:
        raise ParseError(NAME, url, "no dated Cube: not a reference-rate file")
    return sorted(days, key=lambda r: (r.rate_date, r.currency))


class EcbSettings(BaseModel):
    ecb_full_history: bool = False  # GPUVALUE_ECB_FULL_HISTORY: every day since 1999 instead of the last 90


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    if ctx.replay:  # the recorded days, the newest again under the live URL below
        urls = [pinned_url(commit) for commit, _, _ in RECORDED[:-1]]
    else:
        urls = [HIST_URL if getattr(ctx.settings, "ecb_full_history", False) else HIST_90D_URL]
    for i, url in enumerate([*urls, DAILY_URL], start=1):
        ctx.step(f"{NAME}: {url.rsplit('/', 1)[-1]}", i, len(urls) + 1)
        page = get_page(ctx, out, url)
        if page is not None:
            out.pages.append(page)
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "fx", records=parse_ecb_rates(page.body, page.url, page.fetched_at.date()))


def _page(url: str, body: bytes, day: date) -> FetchedPage:
    # Published at 16:00 CET on its day: dated by that day, never by the build or the run.
    return page_from_file(NAME, body, url, datetime(day.year, day.month, day.day, 15, tzinfo=timezone.utc), "text/xml")


def _replay(fixtures: Path) -> Iterator[Recording]:
    for commit, day, fixture in RECORDED:
        body = (fixtures / fixture).read_bytes()
        note = f"{_LIBQALCULATE}@{commit}:data/eurofxref-daily.xml (the ECB's rates of {day})"
        yield Recording(_page(pinned_url(commit), body, day), note)
    commit, day, fixture = RECORDED[-1]
    yield Recording(_page(DAILY_URL, (fixtures / fixture).read_bytes(), day),
                    f"{_LIBQALCULATE}@{commit}:data/eurofxref-daily.xml (the ECB's rates of {day})")


SOURCE = Source(
    name=NAME,
    kind="fx",
    export_kind="fx",
    attribution="Exchange rates: European Central Bank euro foreign exchange reference rates (ecb.europa.eu)",
    licence="ECB reference rates, reused with the source named (ECB copyright and reuse terms)",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    settings=EcbSettings,
    label="ECB euro reference rate",  # a converted price says "at the ECB euro reference rate of <day>"
    sample_url=DAILY_URL,
    fixtures=tuple(f for _, _, f in RECORDED),
    hosts=("ecb.europa.eu",),
)
