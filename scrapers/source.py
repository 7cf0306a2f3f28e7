"""What a source declares about itself: the one place a new source describes its name, kind,
attribution, settings, fetching, parsing, replay recording and title vocabulary.

Every list that names sources (settings' choices, ``gpuvalue parse``, export attributions, the replay
build, fuzzing, reparse) reads the registry (``gpuvalue.scrapers.registry``), which collects the
``SOURCE`` declared by each module of ``gpuvalue.scrapers.sources``. A source only yields records;
where they are stored is chosen by the flow, per kind.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timezone
from pathlib import Path
from time import monotonic
from typing import Any

from pydantic import BaseModel

from gpuvalue.models.price_index import IndexNaming
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import ProviderScore
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import RobotsDisallowed

# Open set: a new kind needs a loader for it in the flow, nothing else.
KNOWN_KINDS = ("spec", "listing", "benchmark", "inference", "price_index", "rental", "fx")

# A long fetch says where it is at most this often (plus its first and last step).
PROGRESS_EVERY_S = 2.0


@dataclass
class FetchContext:
    """What a fetch function may use; built fresh inside each fetch task (it does not pickle)."""

    client: Any  # gpuvalue.scrapers.http.PoliteClient (replay swaps only its transport)
    settings: Any  # the flow's Settings: core fields plus every source's own
    replay: bool
    progress: Callable[[str], None] | None = None  # where the fetch says what it is doing
    shopping_list: tuple[str, ...] = ()  # listing sources: the searches the coverage rule derived
    _last_step: float | None = field(default=None, init=False, repr=False)

    def report(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)

    def step(self, message: str, number: int, total: int | None = None) -> None:
        """One step of a long fetch (a page, a search), said on the first and the last step and at
        most every PROGRESS_EVERY_S seconds between: a live fetch, waiting politely between pages,
        shows where it is every few pages; a replay, reading hundreds of pages a second, says two
        lines instead of hundreds. Warnings go through ``report``, never held back."""
        now = monotonic()
        if (number == 1 or number == total or self._last_step is None
                or now - self._last_step >= PROGRESS_EVERY_S):
            self._last_step = now
            self.report(message)


@dataclass(frozen=True)
class Recording:
    """One page of the shipped replay archive: stored under the exact URL the live fetch requests,
    with its capture time as ``fetched_at`` so a replay never presents old data as today's."""

    page: FetchedPage
    provenance: str  # where the saved file came from (repository, commit, path, capture date)


@dataclass(frozen=True)
class TitleVocabulary:
    """Words a source's listings use that the shared rules do not know (its language, its jargon).

    ``condition_words`` maps a phrase to a condition class ("parts", "used", "new", ...);
    ``junk_words`` are phrases that make a title no single working card (labelled by reason)."""

    condition_words: dict[str, str] = field(default_factory=dict)
    junk_words: dict[str, str] = field(default_factory=dict)  # phrase -> reason label, e.g. "parts"


@dataclass(frozen=True)
class Harness:
    """What makes a benchmark source a harness (``docs/harnesses.md``): a project whose figures are
    compared among themselves, then combined with the other measured ones.

    ``anchors`` are the cards its ratios may anchor on where a comparison has no reference card
    (possibly none). ``join_runs`` turns its parsed records into figures where it publishes each
    run's results and the run's description apart (records in, ``HarnessFigure``s out); None: its
    parse yields the figures themselves."""

    anchors: tuple[str, ...] = ()
    join_runs: Callable[[list[Any]], Iterable[Any]] | None = None
    # How the enrich stage resolves its device names (models/harness.py, resolve_figures): its alias
    # table of every name its files use, checked by hand (device_key -> (model or None, reason)), and
    # names the listing-title matcher misreads, as titles it reads right (device_key -> title).
    aliases: Mapping[str, tuple[str | None, str | None]] = field(default_factory=dict)
    titles: Mapping[str, str] = field(default_factory=dict)
    # Its comparisons anchored on a later anchor link through its own figure of that anchor from the
    # comparisons before, in anchor order (MLPerf's rounds: the H200 of the newer rounds through the
    # H200 the older ones measured beside the H100), before any other source's card.
    bridge: bool = False
    # Whether its cards are in `perf --evaluate`'s third held-out check, fixed over the four harnesses
    # before MLPerf (docs/performance-log.md, "The next check, applied to these harnesses").
    third_check: bool = True


@dataclass(frozen=True)
class Source:
    """A source, as its module declares it.

    ``fetch`` is None for an embedded source (its data ships with gpuvalue; ``load_embedded`` reads
    it). ``parse`` turns one page into records and is pure: page in, records out. ``replay`` yields
    the recordings of the shipped archive from a folder of saved pages (None: nothing to record).
    ``spec_precedence`` orders spec sources when they disagree (lower wins)."""

    name: str
    kind: str
    attribution: str
    licence: str
    fetch: Callable[[FetchContext], SourceFetch] | None = None
    parse: Callable[[FetchedPage], ParsedSource] | None = None
    load_embedded: Callable[[], ParsedSource] | None = None
    settings: type[BaseModel] | None = None  # its own settings fields (GPUVALUE_<FIELD>), merged into Settings
    spec_precedence: int | None = None
    replay: Callable[[Path], Iterable[Recording]] | None = None
    vocabulary: TitleVocabulary | None = None
    default: bool = True  # read by a default run; False: opt-in through GPUVALUE_SOURCES
    aliases: tuple[str, ...] = ()  # former names, still accepted where a user names a source
    fixtures: tuple[str, ...] = ()  # recorded pages under tests/fixtures/ that its parser test reads
    export_kind: str | None = None  # the word exports and the feed use for its kind (stable since v1)
    # The short name outputs show a user beside a number it supplied ("index price of 2023-10 (<label>,
    # ...)"); None: its name. Stored in the warehouse's sources table, so the shown words need no list here.
    label: str | None = None
    # A price index's figure, named for what it is, with ``{n}`` for how many prices it averages ("average
    # of {n} sold", "mean of the {n} cheapest asking prices"); None: an average of sold cards. Stored in the
    # sources table beside the label, so every output names an index price's statistic from the warehouse.
    statistic: str | None = None
    live_when: Callable[[Any], bool] | None = None  # with both fetch and load_embedded: settings -> fetch live?
    # The date all of its data is of, where one date holds (a harness read at a pinned commit): the perf
    # stage dates its figures with it, whenever they were fetched. Sources whose pages differ in date
    # stamp their records in parse instead.
    as_of: date | None = None
    harness: Harness | None = None  # a benchmark harness: combined with the others, checked by `perf --evaluate`
    sample_url: str | None = None  # a URL its parser accepts, for the fuzz tests (`gpuvalue parse` passes the file's own URI)
    inspect: Callable[[bytes, str], tuple[list[Any], list[str]]] | None = None  # what `gpuvalue parse` prints, when not parse's records
    # A rental source's own GPU names: (provider, published name, instance type) -> the reading the cloud
    # name matcher takes instead (models/cloud_names.py, NameReading), None where the name reads as
    # published. Its parse applies it; the matcher's label figures (scrapers/rental_names.py) read it here.
    gpu_names: Callable[[str, str, str | None], Any] | None = None
    # A price index's names, as the enrich stage matches them (models/index_matching.py): how much the
    # matcher's answer is checked against what a name states. None: the plain reading.
    index_naming: IndexNaming | None = None
    # All the pages of one fetch read together, where one page says what another's data is (a table and
    # the answer dating it, fetched beside it): pages in, records out, as pure as ``parse``, which still
    # reads any one page alone (``gpuvalue parse``, the probe, the fuzz tests). None: each page by ``parse``.
    parse_fetch: Callable[[list[FetchedPage]], ParsedSource] | None = None
    # The domains its pages live on (each with its subdomains: "ebay.com" covers "signin.ebay.com"): a
    # redirect may lead into them, besides the host a request asked, and nowhere else (scrapers/redirects.py).
    hosts: tuple[str, ...] = ()
    # A rental source whose provider scores its own offers (each offer's ``extras[provider_score.extra]``):
    # the loader stores this declaration beside the offers, and `gpuvalue rent` shows the score as it says.
    provider_score: ProviderScore | None = None

    def __post_init__(self) -> None:
        if self.kind not in KNOWN_KINDS:
            raise ValueError(f"source {self.name}: unknown kind {self.kind!r}; known: {', '.join(KNOWN_KINDS)}")
        if self.fetch is None and self.load_embedded is None:
            raise ValueError(f"source {self.name}: neither fetch nor load_embedded")
        if self.fetch is not None and self.parse is None:
            raise ValueError(f"source {self.name}: fetches pages but has no parse")
        if self.parse_fetch is not None and self.parse is None:
            raise ValueError(f"source {self.name}: reads its pages together but has no parse for one page")
        if self.gpu_names is not None and self.kind != "rental":
            raise ValueError(f"source {self.name}: only a rental source reads GPU names of its own, not a {self.kind} source")
        if self.index_naming is not None and self.kind != "price_index":
            raise ValueError(f"source {self.name}: only a price index declares its naming, not a {self.kind} source")
        if self.provider_score is not None and self.kind != "rental":
            raise ValueError(f"source {self.name}: only a rental source declares a provider score, not a {self.kind} source")
        if self.harness is not None and self.kind != "benchmark":
            raise ValueError(f"source {self.name}: only a benchmark source is a harness, not a {self.kind} source")

    @property
    def embedded(self) -> bool:
        """Never fetched: its data ships with gpuvalue."""
        return self.fetch is None

    def reads_embedded(self, settings: Any) -> bool:
        """Whether a run reads the shipped data rather than fetching (a source may offer both)."""
        if self.fetch is None:
            return True
        if self.load_embedded is None:
            return False
        return not (self.live_when is not None and self.live_when(settings))

    def parse_pages(self, pages: Iterable[FetchedPage] | None) -> ParsedSource:
        """All pages of this source into one batch (None: read the embedded data), each by ``parse`` or
        all together by ``parse_fetch``; any page that does not parse fails the source."""
        if pages is None:
            assert self.load_embedded is not None, f"{self.name} has no embedded data"
            return self.load_embedded()
        assert self.parse is not None
        if self.parse_fetch is not None:
            return self.parse_fetch(list(pages))
        merged = ParsedSource(self.name, self.kind)
        for page in pages:
            merged.extend(self.parse(page))
        return merged



def get_page(ctx: FetchContext, out: SourceFetch, url: str, *, headers: dict | None = None) -> FetchedPage | None:
    """One page, or None when robots.txt disallows it: such a page is skipped with the reason logged,
    never fetched, and never counted as a failure of the source."""
    try:
        return ctx.client.get(url, source=out.source, headers=headers)
    except RobotsDisallowed as exc:
        out.warnings.append(f"{out.source}: skipped, robots.txt disallows it: {exc}")
        ctx.report(out.warnings[-1])
        return None


def page_from_file(source: str, body: bytes, url: str, fetched_at: datetime | None = None,
                   content_type: str | None = None) -> FetchedPage:
    """A saved file as the page a fetch would have returned (``gpuvalue parse``, the replay build, tests)."""
    import hashlib

    return FetchedPage(source=source, url=url, status=200, fetched_at=fetched_at or datetime.now(timezone.utc),
                       sha256=hashlib.sha256(body).hexdigest(), body=body, content_type=content_type)


def at_midnight_utc(day: date) -> datetime:
    return datetime.combine(day, time.min, timezone.utc)
