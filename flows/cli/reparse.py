"""`gpuvalue reparse`: rebuild the parsed tables from the raw archive with today's parsers.

A parser fix is worth little if the days it misread stay misread. Every body the daily flow parsed
is kept in the raw archive beside the database, so the page-derived rows (spec pages, listings,
benchmarks, inference figures) can be rebuilt from it through the very functions the flow uses,
without touching the network. Rows that never came from a page (the embedded spec extracts, CSV
imports) stay as they are.

Pages are replayed fetch by fetch, oldest first, so spec versions and listing first/last-seen dates
come out as the daily runs made them.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer
from rich.markup import escape

from gpuvalue.flows.cli.cli_app import DbOpt, fail, parse_date, full_settings, app, err, out

# What rebuilding needs (the registry, the stages, the warehouse) is imported where it is used: this
# module is imported for every command, and those imports cost most of a second (flows/cli/cli_app.py).
if TYPE_CHECKING:
    from gpuvalue.flows.settings import Settings
    from gpuvalue.models.records import FetchedPage
    from gpuvalue.models.source_batches import ParsedSource
    from gpuvalue.scrapers.archive import Archive, ArchiveEntry

log = logging.getLogger("gpuvalue.reparse")

Progress = Callable[[str, int, int], None]  # (what, done, total)


@dataclass
class FetchBatch:
    """The pages one source got in one run: what the flow parsed and loaded together."""

    source: str
    entries: list[ArchiveEntry]


@dataclass
class ReparseSummary:
    # Per source what was rebuilt: distinct listings for a listing source, distinct cards for a spec
    # source (a listing seen in three fetches is one listing), rows for the others.
    sources: dict[str, int] = field(default_factory=dict)
    fetches: dict[str, int] = field(default_factory=dict)  # fetches (runs' batches of pages) read per source
    failed: dict[str, str] = field(default_factory=dict)  # source -> why it was left as it was
    skipped: list[str] = field(default_factory=list)
    tampered: list[tuple[str, str, str]] = field(default_factory=list)  # (source, url, why) of a changed body
    catalog_models: int = 0
    estimated: int = 0
    days_ranked: list[date] = field(default_factory=list)
    nothing_to_do: bool = False  # no page in the raw archive matched: nothing was rebuilt, nothing re-ranked


def fetch_batches(entries: Iterable[ArchiveEntry], *, source: str | None = None, since: date | None = None) -> list[FetchBatch]:
    """Archive lines grouped into per-run batches, oldest first.

    A run archives each source's pages together, each URL once; so a batch ends where another
    source's lines begin or a URL already in the batch comes again (the next run of that source).
    """
    batches: list[FetchBatch] = []
    current: FetchBatch | None = None
    urls: set[str] = set()
    for e in entries:
        if current is None or e.source != current.source or e.url in urls:
            current = FetchBatch(e.source, [])
            urls = set()
            batches.append(current)
        current.entries.append(e)
        urls.add(e.url)
    keep = []
    for b in batches:
        if source is not None and b.source != source:
            continue
        if since is not None:
            b.entries = [e for e in b.entries if e.fetched_at.date() >= since]
        if b.entries:
            keep.append(b)
    return keep


def _pages(archive: Archive, batch: FetchBatch, summary: ReparseSummary) -> list[FetchedPage] | None:
    """The batch's pages, each body checked against its recorded sha256; None when any differs (each
    one named in ``summary.tampered``): a changed body is not what was fetched that day."""
    from gpuvalue.scrapers.archive import TamperedBody

    pages, differ = [], False
    for e in batch.entries:
        try:
            pages.append(archive.page(e))
        except TamperedBody as exc:
            summary.tampered.append((batch.source, e.url, str(exc)))
            differ = True
        except OSError as exc:
            summary.tampered.append((batch.source, e.url, f"the archived body cannot be read: {exc.strerror or exc}"))
            differ = True
    return None if differ else pages


def _parse_all(archive: Archive, batches: list[FetchBatch], summary: ReparseSummary,
               progress: Progress) -> dict[str, list[ParsedSource]]:
    """Every batch parsed before anything is written: a source whose pages no longer parse is left untouched."""
    from gpuvalue.scrapers import registry

    parsed: dict[str, list[ParsedSource]] = {}
    for i, batch in enumerate(batches, start=1):
        progress(f"parsing {batch.source}", i - 1, len(batches))
        if batch.source in summary.failed:
            if any(source == batch.source for source, _, _ in summary.tampered):
                _pages(archive, batch, summary)  # every body checked, so that each changed one is named
            continue
        try:
            spec = registry.get(batch.source)
        except KeyError:
            spec = None
        if spec is None or spec.parse is None:
            if batch.source not in summary.skipped:
                summary.skipped.append(batch.source)
            continue
        pages = _pages(archive, batch, summary)
        if pages is None:
            changed = sum(1 for source, _, _ in summary.tampered if source == batch.source)
            summary.failed[batch.source] = (f"{changed} archived bod{'y differs' if changed == 1 else 'ies differ'} "
                                            "from the sha256 recorded in the raw archive's index (named above)")
            parsed.pop(batch.source, None)
            continue
        try:
            parsed.setdefault(batch.source, []).append(spec.parse_pages(pages))
        except Exception as exc:  # one source failing never stops the others
            summary.failed[batch.source] = f"{type(exc).__name__}: {exc}"
            parsed.pop(batch.source, None)
    progress("parsing", len(batches), len(batches))
    return parsed


def _delete_page_rows(con, parsed: dict[str, list[ParsedSource]], settings: Settings) -> None:
    """Rows about to be rebuilt; perf is replaced per benchmark source by the load itself."""
    from gpuvalue.scrapers import registry
    from gpuvalue.warehouse import load, queries

    with load.transaction(con):
        for name, batches in parsed.items():
            kind = registry.get(name).kind
            if kind == "spec":
                sources = {s.source for b in batches for s in b.specs} | {name}
            elif kind == "listing":
                sources = {li.source for b in batches for li in b.listings} | {name}
            else:
                continue
            for s in sorted(sources):
                queries.delete_source_rows(con, kind, s)
        load.rebuild_price_observations(con)


def reparse_database(
    db: str | Path,
    *,
    source: str | None = None,
    since: date | None = None,
    progress: Progress | None = None,
) -> ReparseSummary:
    """Rebuild page-derived rows of ``db`` from its raw archive, then the catalog, estimates and every ranked day.

    Without ``since`` the rebuilt sources' rows are replaced whole; with it, pages fetched since
    that day are parsed and loaded again over what is there (listings and spec versions upsert).
    """
    from gpuvalue.flows.settings import Settings
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.archive import Archive
    from gpuvalue.scrapers.bounded import limit_bytes
    from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database

    settings = Settings(db=Path(db))
    progress = progress or (lambda what, done, total: None)
    summary = ReparseSummary()
    if source is not None:
        source = registry.canonical(source)
    if not Path(db).exists():
        raise WarehouseError(f"no database at {db}: nothing to reparse")
    archive = Archive(settings.raw_archive_dir, max_body_bytes=limit_bytes(settings.max_decompressed_mb))
    if not archive.index_path.exists():
        raise WarehouseError(f"no raw archive at {settings.raw_archive_dir}: nothing to reparse")
    batches = fetch_batches(archive.entries(), source=source, since=since)
    if not batches:
        summary.nothing_to_do = True  # no lock taken, no stage run: the warehouse is left exactly as it is
        return summary
    parsed = _parse_all(archive, batches, summary, progress)

    with RunLock(settings.db, "reparse"):
        con = open_database(settings.db)
        try:
            if since is None:
                _delete_page_rows(con, parsed, settings)
            _load(con, settings, parsed, summary, progress)
            con.execute("CHECKPOINT")
        finally:
            con.close()
    return summary


def _load(con, settings: Settings, parsed: dict[str, list[ParsedSource]], summary: ReparseSummary,
          progress: Progress) -> None:
    """The pipeline's warehouse stages on the re-parsed batches, then every ranked day again."""
    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows import stages as S
    from gpuvalue.scrapers import registry

    # A long cross-validation shows as the bar's text, its folds counted in the text itself.
    ctx = S.StageContext(con=con, settings=settings, loaded_at=P.utcnow(), progress=progress,
                         note=lambda message: progress(message, 0, 0))
    days = S.ranked_days(con)
    done = S.rerank_after(ctx, parsed, stages=("load", "match", "perf", "estimate", "rank"), days=days)
    for stage in ("load", "match", "perf"):
        result = done[stage][0] if stage == "load" else done[stage]
        for name, n in result.rows.items():
            summary.sources[name] = summary.sources.get(name, 0) + n
        for name, why in result.failed.items():
            summary.failed[name] = why
    for name, batches in parsed.items():
        if name not in summary.sources:
            continue
        summary.fetches[name] = len(batches)
        kind = registry.get(name).kind
        if kind == "listing":
            summary.sources[name] = len({(li.source, li.listing_id) for b in batches for li in b.listings})
        elif kind == "spec":
            summary.sources[name] = len({(sp.source, sp.model) for b in batches for sp in b.specs})
    summary.catalog_models = done["load"][1]
    summary.estimated = done["estimate"]
    summary.days_ranked = days


def _unit(name: str) -> str:
    from gpuvalue.scrapers import registry

    try:
        kind = registry.get(name).kind
    except KeyError:
        return "rows"
    return {"listing": "listings", "spec": "specs"}.get(kind, "rows")


@app.command()
def reparse(
    source: Annotated[Optional[str], typer.Option("--source", help="Only this source ({parse_sources}).")] = None,
    since: Annotated[Optional[str], typer.Option("--since", help="Only pages fetched on or after this day (YYYY-MM-DD); rows are upserted, not replaced.")] = None,
    db: DbOpt = None,
) -> None:
    """Rebuild specs, listings and benchmarks from the raw archive with the current parsers (no network)."""
    from gpuvalue.scrapers import registry
    from gpuvalue.warehouse.db import WarehouseError

    since_day = parse_date(since, "--since")
    parsing = [s for s, v in registry.all_sources().items() if v.parse]
    try:
        if source is not None and registry.get(source).parse is None:
            raise KeyError(source)
    except KeyError:
        fail(f"unknown source {source!r}; reparse knows {', '.join(parsing)}")
    settings = full_settings(db)
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
    from rich.progress import Progress as Bar

    with Bar(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
             console=err, transient=True) as bar:
        task = bar.add_task("reading the raw archive", total=None)

        def show(what: str, done: int, total: int) -> None:
            bar.update(task, description=what, completed=done, total=total or None)

        try:
            summary = reparse_database(settings.db, source=source, since=since_day, progress=show)
        except WarehouseError as exc:
            fail(str(exc))
    if summary.nothing_to_do:
        what = f" for {registry.canonical(source)}" if source is not None else ""
        when = f" since {since_day.isoformat()}" if since_day is not None else ""
        out.print(f"nothing fetched{when}{what}; nothing rebuilt")
        return
    for name, n in summary.sources.items():
        fetches = summary.fetches.get(name, 1)
        out.print(f"{name}: {n} {_unit(name)} rebuilt from {fetches} fetch{'es' if fetches != 1 else ''} "
                  "in the raw archive")
    out.print(f"catalog: {summary.catalog_models} models; estimates: {summary.estimated}; "
              f"ranking recomputed for {len(summary.days_ranked)} day(s)")
    for name in summary.skipped:
        err.print(f"[yellow]skipped[/yellow] {name}: not a source gpuvalue parses from pages")
    for name, url, why in summary.tampered:
        err.print(f"[red]changed body[/red] {escape(name)} {escape(url)}: {escape(why)}", highlight=False, soft_wrap=True)
    if summary.failed:
        for name, why in summary.failed.items():
            err.print(f"[red]{name} left as it was:[/red] {why}")
        raise typer.Exit(1)
