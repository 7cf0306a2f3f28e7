"""The stages of a daily run as plain functions, so the Prefect flow, ``reparse`` and the tests
share one implementation: fetch (network or replay) -> parse -> load -> catalog -> match ->
performance -> prices and ranking.
"""

from __future__ import annotations

import logging
import math
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import pyarrow as pa
import pyarrow.compute as pc

from gpuvalue.flows.settings import Settings
from gpuvalue.flows.matcher import catalog_matcher  # noqa: F401  (the flow's matcher: P.catalog_matcher)
from gpuvalue.flows.shopping import coverage  # noqa: F401  (the flow's shopping list: P.coverage)
from gpuvalue.models.records import FetchedPage, InferenceFigure, PerfFigure
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.source import FetchContext
from gpuvalue.warehouse import load, queries
from gpuvalue.warehouse.listing_rows import listing_rows  # noqa: F401  (re-exported for callers of the flow)

log = logging.getLogger("gpuvalue.pipeline")


@dataclass
class SourceOutcome:
    source: str
    status: str  # ok | failed | skipped | not recorded
    rows: int = 0
    error: str | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def note(self, limit: int) -> str:
        """The run summary's words for this source in at most ``limit`` characters: its error, else its
        first warning and how many more there are, cut at a word. Nothing is lost by the cut: the runs
        table keeps the whole error and every warning (its ``error`` column), and the summary says so."""
        if self.error:
            return _cut(self.error, limit, " (whole in table runs)")
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

    if replay:
        transport = ReplayTransport(Archive(replay_dir or packaged_replay_dir()))
        return PoliteClient(transport=transport, min_interval_s=0.0, sleep=lambda _s: None, max_retries=0)
    return PoliteClient(cache_dir=settings.http_cache_dir)


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
    client = make_client(settings, replay, replay_dir)
    try:
        fetch = registry.get(source).fetch
        assert fetch is not None
        return fetch(FetchContext(client=client, settings=settings, replay=replay, progress=progress,
                                  shopping_list=tuple(shopping_list)))
    finally:
        client.close()


def archive_pages(archive: Archive, pages: Iterable[FetchedPage]) -> int:
    n = 0
    for page in pages:
        # Validators, dates and content type only: the client already dropped credential and cookie headers.
        archive.put(page, headers=getattr(page, "response_headers", None))
        n += 1
    return n


# ---- loading ---------------------------------------------------------------------------------

def load_specs(con: duckdb.DuckDBPyConnection, parsed: ParsedSource) -> int:
    with load.transaction(con):
        return load.load_gpu_specs(con, parsed.specs)


def rebuild_catalog(con: duckdb.DuckDBPyConnection) -> tuple[int, int]:
    """Merge every spec source's newest specs into the catalog; which source wins a field is each
    spec source's declared precedence, and disagreements land in spec_conflicts."""
    from gpuvalue.models.catalog import merge_specs

    merged = merge_specs(load.current_specs(con), precedence=registry.spec_precedence())
    rows = [r.model_dump() for r in merged.rows]
    conflicts = [c.model_dump() for c in merged.conflicts]
    with load.transaction(con):
        n = load.replace_catalog(con, rows, conflicts)
    return n, len(conflicts)


def load_listings(con: duckdb.DuckDBPyConnection, rows: pa.Table | Sequence[dict]) -> int:
    with load.transaction(con):
        return load.load_listings(con, rows)


def matched_rows(rows: pa.Table) -> int:
    """How many of ``listing_rows``' rows name a model."""
    return pc.sum(pc.fill_null(pc.not_equal(rows.column("model"), ""), False)).as_py() or 0


def perf_from_tables(parsed: ParsedSource, reference: str):
    from gpuvalue.models.perf_measured import relative_perf_from_lambda

    return relative_perf_from_lambda(parsed.perf_tables, reference=reference)


def load_measured_perf(con: duckdb.DuckDBPyConnection, measured, loaded_at: datetime) -> int:
    by_source: dict[str, list[PerfFigure]] = defaultdict(list)
    for f in measured.figures:
        by_source[f.source].append(f)
    scaling: dict[str, list[dict]] = defaultdict(list)
    for s in measured.scaling:
        d = s.model_dump() if hasattr(s, "model_dump") else dict(s.__dict__)
        scaling[d["source"]].append(d)
    workloads: dict[str, list[dict]] = defaultdict(list)
    for r in getattr(measured, "per_workload", None) or []:
        workloads[r.source].append(r.model_dump())
    n = 0
    with load.transaction(con):
        for source, figs in by_source.items():
            n += load.replace_perf(con, source, figs, loaded_at)
        for source, rows in scaling.items():
            load.replace_scaling(con, source, rows)
        for source in {*by_source, *workloads}:
            load.replace_perf_workload(con, source, workloads.get(source, []))
    return n


def load_inference(con: duckdb.DuckDBPyConnection, parsed: ParsedSource, loaded_at: datetime) -> int:
    """An inference source's figures into perf_inference (never perf): each source's rows replaced.

    A figure whose model the catalog does not hold is dropped with a warning on the source, so a
    renamed catalog model shows up in the run summary instead of leaving an orphan row."""
    known = queries.catalog_model_names(con)
    by_source: dict[str, list[InferenceFigure]] = defaultdict(list)
    missing: set[str] = set()
    for f in parsed.inference:
        if f.model in known:
            by_source[f.source].append(f)
        else:
            missing.add(f.model)
    if missing:
        parsed.warnings.append(f"{parsed.source}: not in the catalog, dropped: {', '.join(sorted(missing))}")
    with load.transaction(con):
        return sum(load.replace_perf_inference(con, source, figs, loaded_at) for source, figs in by_source.items())


def catalog_features(con: duckdb.DuckDBPyConnection) -> dict[str, dict]:
    return queries.catalog_features(con)


def fitted_estimators(
    con: duckdb.DuckDBPyConnection, *, computed_at: datetime | None = None,
    note: Callable[[str], None] | None = None,
) -> tuple[dict, dict[str, dict]]:
    """The spec model per precision, fitted on the benchmark figures in the warehouse (local
    measurements excluded: they are what the model is applied to) and the per-workload ratios
    behind them, and the catalog's features.

    Each fit's cross-validated error is read from ``perf_estimate_cv`` when a fit on the same
    inputs computed it, else from the errors shipped with gpuvalue for the same inputs digest;
    otherwise it is computed. When ``computed_at`` is given (a writing connection), a shipped or
    computed error is stored in ``perf_estimate_cv``. ``note`` gets a line when a cross-validation
    starts and every tenth of its folds: it takes minutes on a small machine, once per change of
    inputs."""
    from gpuvalue.models.perf_digest import estimate_inputs_digest
    from gpuvalue.models.perf_workload import fit_estimator
    from gpuvalue.models.perf_measured import WorkloadRatio
    from gpuvalue.warehouse.estimate_cv import fill_form, known_cv_error, store_cv_error

    features = catalog_features(con)
    rows = queries.measured_perf_for_fit(con)
    measured = [
        PerfFigure(model=r[0], precision=r[1], relative_perf=r[2], source=r[3], method=r[4], reference=r[5],
                   measured=r[6], workloads=r[7] or 0, uncertainty=r[8], as_of=r[9])
        for r in rows
    ]
    per_workload = [
        WorkloadRatio(model=r[0], precision=r[1], source=r[2], workload=r[3], ratio=r[4])
        for r in queries.perf_workload_ratios(con)
    ]
    estimators = {}
    for precision in ("fp16", "fp32"):
        pm = [f for f in measured if f.precision == precision and f.model in features]
        if len(pm) < 3:
            continue
        digest = estimate_inputs_digest(pm, features, precision, per_workload)
        known = known_cv_error(con, digest)  # this warehouse's, else the one shipped for these inputs
        progress = None
        if known is None and note is not None:
            note(f"estimate: no cross-validated error stored or shipped for these {precision} inputs; "
                 "cross-validating the fit (can take minutes; once per change of inputs)")
            progress = _cross_validation_progress(note, precision)
        est = fit_estimator(pm, features, precision, per_workload=per_workload,
                            known_cv_error=known.error if known else None, known_form=known.form if known else None,
                            progress=progress)
        form = est.form.code
        if (known is None or not known.stored) and computed_at is not None and est.cv_median_abs_error is not None:
            store_cv_error(con, digest, precision, est.version, len(est.trained_models), est.cv_median_abs_error,
                           known.computed_at if known else computed_at, form)
        elif known is not None and known.stored and known.form is None and computed_at is not None:
            fill_form(con, digest, form)
        estimators[precision] = est
    return estimators, features


def _cross_validation_progress(note: Callable[[str], None], precision: str) -> Callable[[int, int], None]:
    """A line at the first fold and at every further tenth of them."""
    shown = -1

    def progress(done: int, total: int) -> None:
        nonlocal shown
        tenth = done * 10 // total
        if tenth != shown:
            shown = tenth
            note(f"estimate: cross-validating {precision}, {done}/{total} cards held out")

    return progress


def estimate_perf(con: duckdb.DuckDBPyConnection, loaded_at: datetime,
                  note: Callable[[str], None] | None = None) -> int:
    """Fit the spec model on what was measured and estimate every catalog card with a bandwidth."""
    estimators, features = fitted_estimators(con, computed_at=loaded_at, note=note)
    figures: list[PerfFigure] = []
    for est in estimators.values():
        for feat in features.values():
            fig = est.estimate(feat)
            if fig is not None:
                figures.append(fig)
    with load.transaction(con):
        return load.replace_perf(con, "estimate", figures, loaded_at)


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
