"""GPU Poet's monthly GPU market reports: each card's best-deal used price of one month of 2026.

GPU Poet tracks eBay and Amazon listings and publishes a report each month. Its "best deal" for a card
is the mean of the three cheapest asking prices of the month: listings, not sales, and the cheap end of
them; every output names it so ("mean of the 3 cheapest asking prices"), never as a sold price. The
reports are public source files of the site (``activescott/gpu-agent`` January to August 2026,
``activescott/gpu-poet`` from August), one folder per report under ``MARKET_REPORTS``: ``page.tsx``
(prose and tables) and ``metadata.ts``, whose ``dateRange`` is the month the prices describe (the
October report covers September; January and February both cover January).

Dating: a report is dated by its ``dateRange``, never by the day it was read. The fetch first asks
GitHub's commits API which commit last changed the report's folder (``scrapers/github_commits.py``) and
reads both files pinned to it; a ``dateRange`` month that begins after that commit is refused, since no
report describes a month it was written before. Without the answer the files on the default branch are
read and the report is dated by its ``dateRange`` alone, said in a warning.

Reading prices is deliberately narrow, because a wrong price is worse than none. A card is the one a
``/gpu/shop/<card>`` or ``/gpu/learn/card/<card>`` link names; its price is read only where the text
ties a whole-dollar amount to that link: a table column headed "Best Deal", "Used Price" or "Best
resale deal (<month>)", a link whose text is the price, or prose right after the card's link
("RTX 3080 ($305, 238 TOPS, 10GB)", "RX 6800 XT at $1.34/FPS ($316, 235 FPS, 16GB)", "RTX 5070 at
$557", "is 62% below at $453", "RTX 5090's best resale deal is $4,795"). A cost per frame, per TOP
or per TFLOP ($1.23/FPS, $1.03 per INT8 TOP, "at $1.67") has cents or a unit and is never read; nor
is an MSRP, an approximate figure ("around $19K"), or any sentence that talks about another month
("last month", "from $X", "rather than", a month name other than the report's). A card given two
different prices in one report gets none (a warning says so).

Corrections: where a later report states that an earlier month's best deal was wrong, the correction
wins over the earlier report's figure. They are prose about another month, which the reader above
skips on purpose, so they are declared in ``CORRECTIONS``, each with the sentence that states it; the
parser checks the sentence is in the report and applies the figure only then. Where two reports cover
one month (January), the later-published one wins.

Data: GPU Poet (gpupoet.com), CC BY-SA 4.0; the attribution travels with every export.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from gpuvalue.models.price_index import IndexNaming, PriceIndexPoint
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import FetchError, HostUnreachable, ParseError
from gpuvalue.scrapers.github_commits import (
    API_HEADERS,
    LastCommit,
    fetch_last_commit,
    last_commit_url,
    raw_url,
    read_last_commit,
)
from gpuvalue.scrapers.http import RobotsUnavailable
from gpuvalue.scrapers.page_text import page_text
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, page_from_file

NAME = "gpupoet-market-reports"
MARKET_REPORTS = "packages/web-app/src/app/gpu/market-report"
FIXTURE_DIR = "prices/gpupoet_market_reports"
PRICES_AVERAGED = 3  # a best deal is the mean of this many of the month's cheapest listings


@dataclass(frozen=True)
class Report:
    """One monthly report: the repository that holds it and its folder's month word."""

    repo: str
    name: str  # "january-2026"

    @property
    def folder(self) -> str:
        return f"{MARKET_REPORTS}/gpu-market-report-{self.name}"


# Every report known, oldest first. August is in both repositories (the site moved); the newer holds it.
REPORTS: tuple[Report, ...] = (
    *(Report("activescott/gpu-agent", f"{m}-2026") for m in
      ("january", "february", "march", "april", "may", "june", "july", "august")),
    Report("activescott/gpu-poet", "september-2026"),
    Report("activescott/gpu-poet", "october-2026"),
)


@dataclass(frozen=True)
class Correction:
    """A later report's statement that an earlier month's best deal for a card was another figure."""

    report: str  # the report stating it, e.g. "october-2026"
    card: str  # the card's link slug
    month: date
    usd: float
    stated: str  # the report's own words (whitespace-collapsed), checked to be in the report


CORRECTIONS: tuple[Correction, ...] = (
    Correction("october-2026", "nvidia-geforce-rtx-5090", date(2026, 8, 1), 3897.0,
               "Without them, August was 95%: the best deal was $3,897 rather than $3,254"),
    Correction("october-2026", "nvidia-geforce-rtx-5090", date(2026, 7, 1), 3173.0,
               "so the August report's $2,873 for the 5090 is $3,173 without it"),
)

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")
_DATE_RANGE = re.compile(r'dateRange:\s*\{\s*from:\s*"(\d{4})-(\d{2})",\s*to:\s*"(\d{4})-(\d{2})"\s*,?\s*\}')
_PUBLISHED = re.compile(r'publishedAt:\s*new Date\("(\d{4}-\d{2}-\d{2})[^"]*"\)')
_SLUG = re.compile(r'slug:\s*"(gpu-market-report-[a-z]+-\d{4})"')
_CARD_LINK = re.compile(r'<Link\s+href="/gpu/(?:shop|learn/card)/([a-z0-9-]+)"\s*>(.*?)</Link>', re.DOTALL)
_OTHER_LINK = re.compile(r"<Link\b[^>]*>(.*?)</Link>", re.DOTALL)
_TABLE = re.compile(r"<table\b.*?</table>", re.DOTALL)
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.DOTALL)
_CELL = re.compile(r"<t([hd])\b[^>]*>(.*?)</t[hd]>", re.DOTALL)
_BLOCK = re.compile(r"</?(?:p|li|ul|ol|div|section|h\d|ChartSection|ReportLayout)\b[^>]*>")
_COMPONENT = re.compile(r"<[A-Z]\w*\b[^<]*?/>", re.DOTALL)
_TAG = re.compile(r"</?[a-zA-Z][^>]*>")
_MARK = re.compile(r"\x01([a-z0-9-]+)\x02(.*?)\x03")
# A whole-dollar amount: not a cost per unit (cents, "/FPS", "per TOP"), not thousands ("$19K"), not an MSRP.
_DOLLARS = r"\$(\d{1,3}(?:,\d{3})+|\d{2,6})(?![\d,]*\.\d|[\d,]*\s*(?:/|per\b|[kK]\b|MSRP))"
_PRICE_CELL = re.compile(r"\$(\d{1,3}(?:,\d{3})+|\d{2,6})")
_PRICE_HEADER = re.compile(r"(?i)(?:best deal|used price|best resale deal)(?:\s*\((\w{3})\w*\))?")
# What may follow a card's link for the next dollar amount to be its price.
_AFTER_CARD = (
    re.compile(r"^(?:'s)?\s*\(" + _DOLLARS + r"\s*[,)]"),  # RTX 3080 ($305, 238 TOPS, 10GB)
    re.compile(r"^\s+(?:is\s+|sits\s+|stays\s+)?(?:now\s+)?at\s+" + _DOLLARS + r"(?!\s*(?:to|-)\s*\$)"),  # at $557
    re.compile(r"^\s+(?:is|sits|stays)\s+(?:just\s+)?\d+% (?:below|above|over|under)(?: (?:its )?(?:original )?MSRP)? at "
               + _DOLLARS),  # is 62% below at $453, is just 3% above at $1,032
    re.compile(r"^\s+(?:also\s+)?(?:eased|dropped|fell|jumped|climbed|rose|slid)\s+(?:another\s+)?\d+(?:\.\d+)?% to "
               + _DOLLARS + r"(?!\s*(?:to|-)\s*\$)"),  # fell 13% to $730: the move's end is this month's
    re.compile(r"^\s+premium\s+[a-z ]*?\d+% (?:above|over) MSRP at " + _DOLLARS),  # premium ... 82% above MSRP at $3,643
    # the first parenthesis after the card, with no price before it (a cost per unit may be): "remains stuck
    # at 83% above MSRP ($3,657)", "leads at $1.13/FPS in Counter-Strike 2 @ 1440p ($200 best deal, 177 FPS"
    re.compile(r"^(?:[^$\x01(]|\$\d+\.\d+\s*/\s*(?:FPS|INT8 TOP|TOP|TFLOP))*?\(" + _DOLLARS
               + r"(?: best deal\b|\s*[,)])"),
    re.compile(r"^\s+at\s+\$\d+(?:\.\d+)?\s*/\s*(?:FPS|TOP|TFLOP)\s*\(" + _DOLLARS + r"\s*,"),  # at $1.34/FPS ($316,
    re.compile(r"^'s best (?:resale )?deal is " + _DOLLARS),  # RTX 5090's best resale deal is $4,795
)
_PRICE_LINK = re.compile(r"^\$(\d{1,3}(?:,\d{3})+|\d{2,6})(?: used)?$")
# A sentence about another time than the report's month: its figures are not this month's.
_OTHER_TIME = re.compile(r"(?i)\blast month|\bfrom \$|\brather than\b|\bwas \$|\bwere \$|\bprevious|\baverage price"
                         r"|\bmedian\b|\bMoM\b|\ba year ago|\blaunch(?:ed)?\b|\bbefore\b|\bused to\b")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\x01\"(])")
_MAX_USD = 100_000.0


@dataclass(frozen=True)
class ReportMeta:
    """What ``metadata.ts`` says: the report's name, the month its prices describe, when it was published,
    and the prices its description states for that month ("the RTX 3090 rose 38% to $1,207 in September")."""

    slug: str
    month: date
    published: date
    prices: tuple[ReportPrice, ...] = ()


@dataclass(frozen=True)
class ReportPrice:
    """One card's best deal as a report states it: the link's card, its name as written, where it was read."""

    card: str
    name: str
    usd: float
    where: str  # "table", "prose", "description" or "correction"


# --------------------------------------------------------------------------- parsers (pure)

def _text(body: bytes, url: str) -> str:
    return page_text(body, NAME, url, kind="a source file")


def read_metadata(body: bytes, url: str) -> ReportMeta:
    """A report's ``metadata.ts``: its slug, the one month of its ``dateRange``, its publication day."""
    text = _text(body, url)
    found = _DATE_RANGE.search(text)
    slug, published = _SLUG.search(text), _PUBLISHED.search(text)
    if found is None or slug is None or published is None:
        raise ParseError(NAME, url, "no report metadata (slug, publishedAt and dateRange)")
    start, end = found.group(1, 2), found.group(3, 4)
    if start != end:
        raise ParseError(NAME, url, f"dateRange spans {'-'.join(start)} to {'-'.join(end)}, not one month")
    try:
        month = date(int(start[0]), int(start[1]), 1)
        day = date.fromisoformat(published.group(1))
    except ValueError:
        raise ParseError(NAME, url, "dateRange or publishedAt is not a date") from None
    if month > day:
        raise ParseError(NAME, url, f"dateRange {month:%Y-%m} is after its publication on {day}")
    return ReportMeta(slug.group(1), month, day, tuple(_described_prices(text, month)))


_VENDOR_SLUG = {"RTX": "nvidia-geforce-", "GTX": "nvidia-geforce-", "RX": "amd-radeon-", "Arc": "intel-"}


def _described_prices(text: str, month: date) -> list[ReportPrice]:
    """A move to a price in the report's own month, as the description states it: "the RTX 3090 rose
    38% to $1,207 in September" (the card by its name; the month must be the dateRange's)."""
    described = re.search(r'description:\s*"((?:[^"\\]|\\.)*)"', text)
    if described is None:
        return []
    pattern = re.compile(r"\bthe ((RTX|GTX|RX|Arc) [A-Z]?\d{3,4}(?: (?:Ti|XT|XTX|Super))?) (?:rose|fell|dropped|climbed|"
                         r"jumped|slid) \d+(?:\.\d+)?% to " + _DOLLARS + rf" in {_MONTHS[month.month - 1]}\b")
    out = []
    for found in pattern.finditer(described.group(1)):
        name = found.group(1)
        card = _VENDOR_SLUG[found.group(2)] + "-".join(name.casefold().split())
        out.append(ReportPrice(card, name, float(found.group(3).replace(",", "")), "description"))
    return out


def _words(fragment: str) -> str:
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def _page_markup(text: str, url: str) -> str:
    """The report's JSX body: from its default export, comments out, JSX spaces as spaces."""
    start = text.find("export default")
    if start < 0 or "ReportLayout" not in text[start:]:
        raise ParseError(NAME, url, "not a market report page (no default export rendering a ReportLayout)")
    markup = re.sub(r"\{/\*.*?\*/\}", " ", text[start:], flags=re.DOTALL)
    return re.sub(r'\{"\s*"\}', " ", markup)


def _table_prices(table: str, month: date) -> list[ReportPrice]:
    rows = [[(kind, cell) for kind, cell in _CELL.findall(row)] for row in _ROW.findall(table)]
    header = next((r for r in rows if r and all(kind == "h" for kind, _ in r)), None)
    if header is None:
        return []
    columns = []
    for i, (_, cell) in enumerate(header):
        match = _PRICE_HEADER.fullmatch(_words(cell))
        if match and (match.group(1) is None or match.group(1).casefold() == _MONTHS[month.month - 1][:3].casefold()):
            columns.append(i)
    out = []
    for row in rows:
        if not columns or row is header or len(row) != len(header):
            continue
        cards = [_CARD_LINK.search(cell) for _, cell in row]
        card = next((m for m in cards if m is not None and not _PRICE_LINK.match(_words(m.group(2)))), None)
        if card is None:
            continue
        for i in columns:
            price = _PRICE_CELL.fullmatch(_words(row[i][1]))
            if price:
                out.append(ReportPrice(card.group(1), _words(card.group(2)), float(price.group(1).replace(",", "")),
                                       "table"))
    return out


def _mentions_other_month(sentence: str, month: date) -> bool:
    own = _MONTHS[month.month - 1]
    return any(re.search(rf"\b{m}\b", sentence) for m in _MONTHS if m != own)


def _prose_prices(markup: str, month: date) -> list[ReportPrice]:
    marked = _CARD_LINK.sub(lambda m: f"\x01{m.group(1)}\x02{_words(m.group(2))}\x03", markup)
    marked = _OTHER_LINK.sub(lambda m: m.group(1), marked)
    marked = _COMPONENT.sub("\n\n", marked)
    marked = _BLOCK.sub("\n\n", marked)
    marked = html.unescape(_TAG.sub(" ", marked))
    out: list[ReportPrice] = []
    for paragraph in re.split(r"\n\s*\n", marked):
        flat = " ".join(paragraph.split())
        for sentence in _SENTENCE_END.split(flat):
            plain = _MARK.sub(lambda m: m.group(2), sentence)
            if _OTHER_TIME.search(plain) or _mentions_other_month(plain, month):
                continue
            for link in _MARK.finditer(sentence):
                card, name = link.group(1), link.group(2)
                own = _PRICE_LINK.match(name)
                if own:
                    out.append(ReportPrice(card, card_name(card), float(own.group(1).replace(",", "")), "prose"))
                    continue
                rest = sentence[link.end():].split("\x01", 1)[0]  # up to the next card's link
                for pattern in _AFTER_CARD:
                    found = pattern.match(rest)
                    if found:
                        out.append(ReportPrice(card, name, float(found.group(1).replace(",", "")), "prose"))
                        break
    return out


def read_report_prices(body: bytes, url: str, month: date,
                       described: tuple[ReportPrice, ...] = ()) -> tuple[list[ReportPrice], list[str]]:
    """Each card's best deal in one report's ``page.tsx`` for ``month`` (its metadata's), with the prices
    its metadata's description states (``described``), one per card, and warnings for cards it gives
    two different prices. Raises only ParseError."""
    markup = _page_markup(_text(body, url), url)
    found = list(described) + [p for table in _TABLE.findall(markup) for p in _table_prices(table, month)]
    found += _prose_prices(_TABLE.sub("\n\n", markup), month)
    by_card: dict[str, list[ReportPrice]] = {}
    for price in found:
        by_card.setdefault(price.card, []).append(price)
    prices, warnings = [], []
    for card, said in by_card.items():
        figures = sorted({p.usd for p in said})
        if len(figures) > 1:
            warnings.append(f"{url}: {card} is given {len(figures)} prices ({', '.join(f'${v:,.0f}' for v in figures)}); "
                            "none is used")
            continue
        named = next((p for p in said if p.name != card_name(card)), said[0])
        prices.append(ReportPrice(card, named.name, figures[0], named.where))
    return prices, warnings


def card_name(card: str) -> str:
    """A report's card slug as a name: ``nvidia-geforce-rtx-5060-ti`` -> ``NVIDIA GeForce RTX 5060 Ti``."""
    words = {"nvidia": "NVIDIA", "geforce": "GeForce", "amd": "AMD", "radeon": "Radeon", "intel": "Intel",
             "arc": "Arc", "tesla": "Tesla", "ti": "Ti", "xt": "XT", "xtx": "XTX", "super": "Super", "pcie": "PCIe",
             "nvl": "NVL", "sxm": "SXM", "pro": "Pro", "ai": "AI"}
    return " ".join(words.get(w, w.upper() if re.fullmatch(r"[a-z]+\d+[a-z]*|[a-z]{1,3}", w) else w)
                    for w in card.split("-"))


# The memory a card's link stands for where the reports say it: the October 2026 report's table labels
# the /gpu/shop/nvidia-geforce-rtx-5060-ti link "RTX 5060 Ti (16GB)".
CARD_MEMORY_GB = {"nvidia-geforce-rtx-5060-ti": 16}
_STATES_MEMORY = re.compile(r"(\d{1,3})\s?GB", re.IGNORECASE)
# A card's name stating no memory is no card where the catalog holds it in several (the enrich stage).
NAMING = IndexNaming(note_title=True)


def card_title(card: str, name: str) -> str:
    """The title naming a report's card, as the enrich stage matches it: its link's card as a name, with
    the memory its text states (or the reports say it stands for) where the name lacks one."""
    stated = _STATES_MEMORY.search(name)
    title = card_name(card)
    memory = stated.group(1) if stated else CARD_MEMORY_GB.get(card)
    if memory and not re.search(r"\d+\s?GB", title, re.IGNORECASE):
        title = f"{title} {memory}GB"
    return title


def report_points(meta: ReportMeta, prices: list[ReportPrice], table: str) -> list[tuple[str, PriceIndexPoint]]:
    """Each price as a point of the report's month, beside its card's slug."""
    points = []
    published = meta.published.replace(day=1)
    for price in prices:
        if not 0 < price.usd < _MAX_USD:
            continue
        try:
            points.append((price.card, PriceIndexPoint(
                source=NAME, gpu_name=price.name, match_title=card_title(price.card, price.name), month=meta.month,
                avg_sold_usd=price.usd, quantity_sold=None, prices_averaged=PRICES_AVERAGED,
                published=published, table=table)))
        except ValidationError as exc:
            raise ParseError(NAME, table, f"{price.name}: {exc.errors()[0]['msg']}") from None
    return points


def stated_corrections(report: str, body: bytes) -> list[Correction]:
    """The declared corrections a report's page states in its own words (whitespace collapsed)."""
    flat = " ".join(html.unescape(_TAG.sub(" ", body.decode("utf-8", "replace").replace('{" "}', " "))).split())
    return [c for c in CORRECTIONS if c.report == report and c.stated in flat]


# --------------------------------------------------------------------------- URLs and dating

_REPORT_URL = re.compile(r"^https://raw\.githubusercontent\.com/(activescott/gpu-(?:agent|poet))/[^/]+/"
                         + re.escape(MARKET_REPORTS) + r"/gpu-market-report-([a-z]+-\d{4})/(page\.tsx|metadata\.ts)$")
_REPORT_FOLDER = re.compile(r"^gpu-market-report-([a-z]+-\d{4})$")


def report_of(url: str) -> tuple[Report, str] | None:
    """The report and file (``page.tsx``, ``metadata.ts``) a raw URL is of, known or newly listed."""
    found = _REPORT_URL.match(url)
    return (Report(found.group(1), found.group(2)), found.group(3)) if found else None


def listed_reports(body: bytes, repo: str) -> list[Report]:
    """The report folders GitHub's contents API lists under ``MARKET_REPORTS`` (a JSON list of entries
    with ``name`` and ``type``); ValueError when the answer is not such a list."""
    import json

    try:
        entries = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ValueError("the answer is not JSON") from None
    if not isinstance(entries, list):
        raise ValueError("the answer is not a list of entries")
    out = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else None
        found = _REPORT_FOLDER.match(name) if isinstance(name, str) and entry.get("type") == "dir" else None
        if found:
            out.append(Report(repo, found.group(1)))
    return out


def contents_url(repo: str) -> str:
    return f"https://api.github.com/repos/{repo}/contents/{MARKET_REPORTS}"


def _commit_of(pages: list[FetchedPage], report: Report) -> LastCommit | None:
    answers = [p for p in pages if p.url == last_commit_url(report.repo, report.folder)]
    if not answers:
        return None
    try:
        return read_last_commit(answers[-1].body)
    except ValueError:
        return None


def read_fetch(pages: list[FetchedPage]) -> tuple[list[PriceIndexPoint], list[str]]:
    """All reports of one fetch: each report's prices dated by its metadata, checked against the
    commit that last changed it; a month two reports cover priced by the later; corrections last."""
    warnings: list[str] = []
    files: dict[str, dict[str, FetchedPage]] = {}
    seen: dict[str, Report] = {}  # by name: a report both repositories hold is read from the last fetched
    for page in pages:
        found = report_of(page.url)
        if found is not None:
            seen[found[0].name] = found[0]
            files.setdefault(found[0].name, {})[found[1]] = page
    chosen: dict[tuple[str, date], tuple[date, PriceIndexPoint]] = {}
    stated: list[tuple[Correction, ReportMeta, str]] = []
    for report in seen.values():
        got = files.get(report.name, {})
        if "page.tsx" not in got or "metadata.ts" not in got:
            if got:
                warnings.append(f"{NAME}: {report.name} lacks its {'metadata.ts' if 'page.tsx' in got else 'page.tsx'}; skipped")
            continue
        page, meta_page = got["page.tsx"], got["metadata.ts"]
        meta = read_metadata(meta_page.body, meta_page.url)
        commit = _commit_of(pages, report)
        if commit is None:
            warnings.append(f"{NAME}: when {report.name} last changed is unknown; dated by its dateRange "
                            f"({meta.month:%Y-%m}) alone")
        elif meta.month > commit.day:
            warnings.append(f"{NAME}: {report.name}'s dateRange {meta.month:%Y-%m} begins after its last commit "
                            f"{commit.sha[:7]} of {commit.day}; skipped")
            continue
        prices, said = read_report_prices(page.body, page.url, meta.month, meta.prices)
        warnings += said
        table = f"{report.repo}:{report.folder}/page.tsx"
        for card, point in report_points(meta, prices, table):
            key = (card, point.month)
            if key not in chosen or chosen[key][0] <= meta.published:
                chosen[key] = (meta.published, point)
        stated += [(fix, meta, table) for fix in stated_corrections(report.name, page.body)]
    points = {key: point for key, (_, point) in chosen.items()}
    for fix, meta, table in stated:
        old = points.get((fix.card, fix.month))
        if old is not None:
            points[(fix.card, fix.month)] = old.model_copy(update={"avg_sold_usd": fix.usd})
        else:  # a month not otherwise read: the correcting report's figure is its best deal
            corrected = ReportMeta(meta.slug, fix.month, meta.published)
            name = card_name(fix.card)
            for card, point in report_points(corrected, [ReportPrice(fix.card, name, fix.usd, "correction")], table):
                points[(card, fix.month)] = point
    return sorted(points.values(), key=lambda p: (p.month, p.gpu_name)), warnings


# --------------------------------------------------------------------------- source

def _newer_reports(ctx: FetchContext, out: SourceFetch) -> list[Report]:
    """Reports published since ``REPORTS`` was written, as the current repository's folder lists them;
    none (said in a warning) when GitHub does not answer. A replay holds no listing: it reads REPORTS."""
    repo = REPORTS[-1].repo
    if ctx.replay:
        return []
    try:
        page = ctx.client.get(contents_url(repo), source=NAME, headers=API_HEADERS)
        listed = listed_reports(page.body, repo)
    except (FetchError, ValueError) as exc:
        out.warnings.append(f"{NAME}: newer reports not looked for, GitHub's contents API did not answer "
                            f"({getattr(exc, 'what', exc)}); the {len(REPORTS)} known reports are read")
        ctx.report(out.warnings[-1])
        return []
    known = {r.name for r in REPORTS}
    return [r for r in listed if r.name not in known]


def _fetch(ctx: FetchContext) -> SourceFetch:
    """Each report's commits answer, then its two files pinned to that commit. A report that fails leaves
    the others; when none is read the source fails with the first error, so a run with no network reads
    the recorded reports that ship with gpuvalue instead (flows/fallback.py)."""
    out = SourceFetch(NAME)
    reports = [*REPORTS, *_newer_reports(ctx, out)]
    errors: list[FetchError] = []
    for number, report in enumerate(reports, start=1):
        ctx.step(f"{NAME}: report {number} of {len(reports)} ({report.name})", number, len(reports))
        commit = fetch_last_commit(ctx, out, report.repo, report.folder)
        ref = commit.sha if commit else "main"
        try:
            for file in ("metadata.ts", "page.tsx"):
                out.pages.append(ctx.client.get(raw_url(report.repo, ref, f"{report.folder}/{file}"), source=NAME))
        except FetchError as exc:
            errors.append(exc)
            out.warnings.append(f"{NAME}: {report.name} not read: {exc.what}")
            ctx.report(out.warnings[-1])
            if isinstance(exc, (RobotsUnavailable, HostUnreachable)):  # the site, not the report: all alike
                break
    if errors and not any(report_of(p.url) for p in out.pages):
        raise errors[0]
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    """One file alone: a metadata file is checked; a page is checked and holds no dated records without
    its metadata (``parse_fetch`` reads them together)."""
    found = report_of(page.url)
    if found is not None and found[1] == "metadata.ts":
        read_metadata(page.body, page.url)
        return ParsedSource(NAME, "price_index")
    if page.url.startswith("https://api.github.com/"):  # a commits answer or a folder's listing: no records
        return ParsedSource(NAME, "price_index")
    _page_markup(_text(page.body, page.url), page.url)
    return ParsedSource(NAME, "price_index", warnings=[
        f"{page.url}: a report's prices are dated by its metadata.ts; read with the fetch that holds both"])


def _parse_fetch(pages: list[FetchedPage]) -> ParsedSource:
    points, warnings = read_fetch(pages)
    return ParsedSource(NAME, "price_index", records=points, warnings=warnings)


def _replay(fixtures: Path) -> Iterator[Recording]:
    for report in REPORTS:
        folder = fixtures / FIXTURE_DIR / report.name
        if not (folder / "page.tsx").exists():
            continue  # not recorded: a replay warns that it was not read
        answer_file = folder / "commits.json"
        if answer_file.exists():
            answer = answer_file.read_bytes()
            commit = read_last_commit(answer)
            ref, day = commit.sha, commit.day
            yield Recording(page_from_file(NAME, answer, last_commit_url(report.repo, report.folder),
                                           at_midnight_utc(day), "application/json; charset=utf-8"),
                            provenance=f"GitHub's commits API for {report.repo}:{report.folder}: last changed in "
                                       f"{commit.sha[:7]} ({day}), written from the repository's history")
        else:  # saved without the commits answer: recorded as the default branch's files
            meta = read_metadata((folder / "metadata.ts").read_bytes(), str(folder))
            ref, day = "main", meta.published
        for file in ("metadata.ts", "page.tsx"):
            body = (folder / file).read_bytes()
            saved_at = SAVED_AT.get((report.name, file), ref)
            yield Recording(page_from_file(NAME, body, raw_url(report.repo, ref, f"{report.folder}/{file}"),
                                           at_midnight_utc(day), "text/plain; charset=utf-8"),
                            provenance=f"{report.repo}@{saved_at}:{report.folder}/{file} ({day})")


def _fixtures() -> tuple[str, ...]:
    out = []
    for report in REPORTS:
        if report.name in RECORDED:
            out += [f"{FIXTURE_DIR}/{report.name}/page.tsx", f"{FIXTURE_DIR}/{report.name}/metadata.ts"]
    return tuple(out)


# Files saved at a commit other than the one a commits answer names (no answer was saved for them).
SAVED_AT = {
    ("october-2026", "page.tsx"): "0eda20fdab6ef33f9edf628608308dc479f1dcbe",
    ("october-2026", "metadata.ts"): "cb529aa1bf39dbc23f8af09a3bb0219fe092329a",
}

# The reports saved in tests/fixtures (September's metadata.ts was not to be had: not recorded).
RECORDED = ("january-2026", "february-2026", "march-2026", "april-2026", "may-2026", "june-2026", "july-2026",
            "august-2026", "october-2026")

SOURCE = Source(
    name=NAME,
    kind="price_index",
    attribution="GPU Poet monthly GPU market reports (gpupoet.com; github.com/activescott/gpu-agent and "
                "activescott/gpu-poet), best-deal prices: the mean of the 3 cheapest eBay and Amazon asking "
                "prices of a month; licensed CC BY-SA 4.0",
    licence="CC BY-SA 4.0",
    label="GPU Poet market report",
    statistic="mean of the {n} cheapest asking prices",
    fetch=_fetch,
    parse=_parse,
    parse_fetch=_parse_fetch,
    replay=_replay,
    sample_url=raw_url("activescott/gpu-poet", "main", f"{MARKET_REPORTS}/gpu-market-report-october-2026/page.tsx"),
    fixtures=_fixtures(),
    index_naming=NAMING,
)

