"""What a daily run needs around its stages: the run summary, the HTTP client every source uses,
fetching and archiving, the progress listener, the stage timer and the exports' day. The warehouse
stages are flows/stages.py's, the loads by kind flows/loaders.py's.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

from gpuvalue.flows.settings import Settings
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import SourceFetch
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.source import FetchContext

log = logging.getLogger("gpuvalue.pipeline")


@dataclass
class SourceOutcome:
    source: str
    status: str  # ok | failed | skipped | not recorded
    rows: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0
    kept: str | None = None  # a failed source: what the ranking keeps of it ("keeps its data of 2026-11-20 ...")

    def note(self, limit: int) -> str:
        """The run summary's words for this source in at most ``limit`` characters: its error (after what
        a failed source keeps, which is never cut), else its first warning and how many more there are,
        cut at a word. Nothing is lost by the cut: the runs table keeps the whole error and every warning
        (its ``error`` column), and the summary says so."""
        if self.error:
            head = f"{self.kept}; " if self.kept else ""
            return head + _cut(self.error, max(limit - len(head), 1), " (whole in table runs)")
        if not self.warnings:
            return ""
        more = len(self.warnings) - 1
        if more:
            tail = f" (+{more} more; all in table runs)"
            return _cut(self.warnings[0], limit - len(tail), "") + tail
        return _cut(self.warnings[0], limit, " (whole in table runs)")


def _cut(text: str, limit: int, where_whole: str) -> str:
    """``text`` if it fits in ``limit`` characters, else its words up to the limit, an ellipsis and
    ``where_whole`` (which counts towards the limit)."""
    if len(text) <= limit:
        return text
    room = max(limit - len(where_whole) - 1, 1)
    head = text[:room]
    if " " in head and not text[room].isspace():
        head = head[:head.rindex(" ")]
    return head.rstrip(" ;,:") + "\u2026" + where_whole


@dataclass
class RunSummary:
    run_id: str
    as_of: date
    replay: bool
    db: Path
    outcomes: dict[str, SourceOutcome] = field(default_factory=dict)
    ranked: int = 0
    catalog_models: int = 0
    spec_conflicts: int = 0
    stage_seconds: dict[str, float] = field(default_factory=dict)
    exports: dict[str, str] = field(default_factory=dict)
    alarms: list[str] = field(default_factory=list)
    coverage_models: int = 0  # catalog models the coverage rule shops for
    coverage_searches: int = 0  # the searches they need (models that share a search count once)
    fail_on_alarm: bool = False  # Settings.fail_on_quality_alarm: an alarm fails the run like a source would
    notices: list[str] = field(default_factory=list)  # about earlier runs (one found interrupted)
    gave_up: str | None = None  # why the run stopped before its work: the warehouse refused it
    stored: dict[str, date] = field(default_factory=dict)  # each source's newest stored data date, before the run
    fallback: dict[str, str] = field(default_factory=dict)  # sources read from the shipped data: why, in words

    @property
    def failed(self) -> list[str]:
        failed = [s for s, o in self.outcomes.items() if o.status == "failed"]
        if self.fail_on_alarm and self.alarms:
            failed.append("quality alarms")
        return failed


def replay_sentence(as_of: date) -> str:
    """What a replay run means for its numbers, in one sentence (the CLI's summary, the Prefect artifact)."""
    return (f"built offline from recorded pages; nothing was fetched for {as_of}. Every price and figure is as old "
            "as its recording (price as of, and each source's data date in the exports), not of that day.")


def make_client(settings: Settings, replay: bool, replay_dir: str | Path | None = None):
    """The one HTTP client every source uses; replay only swaps its transport."""
    from gpuvalue.scrapers.http import PoliteClient
    from gpuvalue.scrapers.replay import ReplayTransport, packaged_replay_dir

    from gpuvalue.scrapers.bounded import limit_bytes

    most = limit_bytes(settings.max_response_mb)
    if replay:
        transport = ReplayTransport(Archive(replay_dir or packaged_replay_dir(),
                                            max_body_bytes=limit_bytes(settings.max_decompressed_mb)))
        return PoliteClient(transport=transport, min_interval_s=0.0, sleep=lambda _s: None, max_retries=0,
                            max_body_bytes=most)
    from gpuvalue.scrapers.bounded import DEFAULT_CACHE_MAX_AGE_H, DEFAULT_REQUEST_DEADLINE_S

    deadline_s: float = getattr(settings, "request_deadline_s", DEFAULT_REQUEST_DEADLINE_S)
    cache_hours: float = getattr(settings, "http_cache_max_age_h", DEFAULT_CACHE_MAX_AGE_H)
    return PoliteClient(cache_dir=settings.http_cache_dir, max_body_bytes=most, request_deadline_s=deadline_s,
                        cache_max_age_s=cache_hours * 3600)


def recorded_sources(replay_dir: str | Path | None = None) -> set[str]:
    from gpuvalue.scrapers.replay import packaged_replay_dir

    return Archive(replay_dir or packaged_replay_dir()).sources()


# A process-wide listener for fetch progress (the CLI's terminal progress display); tasks on Dask
# workers in other processes have none and only log.
_progress_listener = None


def set_progress_listener(listener) -> None:
    global _progress_listener
    _progress_listener = listener


def notify_progress(message: str) -> None:
    listener = _progress_listener
    if listener is not None:
        listener(message)


def fetch_source(source: str, settings: Settings, replay: bool, replay_dir: str | Path | None = None,
                 progress=None, shopping_list: Sequence[str] = ()) -> SourceFetch:
    from gpuvalue.scrapers.redirects import home_domains

    client = make_client(settings, replay, replay_dir)
    try:
        src = registry.get(source)
        client.redirect_hosts = home_domains(src.hosts)  # where its redirects may lead (scrapers/redirects.py)
        fetch = src.fetch
        assert fetch is not None
        fetched = fetch(FetchContext(client=client, settings=settings, replay=replay, progress=progress,
                                     shopping_list=tuple(shopping_list)))
    finally:
        client.close()
    cached = [page for page in fetched.pages if getattr(page, "from_cache", False) and not replay
              and page.fetched_at < utcnow() - timedelta(minutes=5)]
    if cached:  # its status says so: these pages are as old as their fetch, not of this run
        oldest = min(page.fetched_at for page in cached)
        fetched.warnings.append(f"{source}: {len(cached)} of {len(fetched.pages)} pages served from the HTTP cache "
                                f"unasked, as fetched (the oldest at {oldest.isoformat(timespec='minutes')}); "
                                "the server said they stay fresh (at most GPUVALUE_HTTP_CACHE_MAX_AGE_H)")
    return fetched


def archive_pages(archive: Archive, pages: Iterable[FetchedPage]) -> int:
    n = 0
    for page in pages:
        # Validators, dates and content type only: the client already dropped credential and cookie headers.
        archive.put(page, headers=getattr(page, "response_headers", None))
        n += 1
    return n


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


class StageTimer:
    def __init__(self, summary: RunSummary, name: str) -> None:
        self.summary, self.name = summary, name

    def __enter__(self) -> StageTimer:
        self.t0 = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.summary.stage_seconds[self.name] = self.summary.stage_seconds.get(self.name, 0.0) + (
            time.perf_counter() - self.t0
        )


def export_day(days: list[date], run_day: date) -> tuple[date, str | None]:
    """The day the run's exports hold: the latest ranked day, so that a run for a past day (a backfill)
    does not replace the exports with an older ranking; and what to say when that is not the run's day."""
    if run_day not in days or max(days) <= run_day:
        return run_day, None
    latest = max(days)
    return latest, (f"exports keep the latest ranked day, {latest.isoformat()}; this run ranked {run_day.isoformat()} "
                    f"(`gpuvalue export --date {run_day.isoformat()}` writes that day's)")
