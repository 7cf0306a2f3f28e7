"""The staged pipeline, written once: fetch -> parse -> load -> match -> perf -> estimate -> rank -> export.

The daily flow runs every stage, each as its own Prefect task (``flows/daily.py``); reparse runs
parse..rank on archived pages, ``import listings`` runs match..rank on a CSV, ``rematch`` runs
match..rank on the stored listings. They all call the functions here, so a stage behaves the same
whoever runs it. Records are stored by their source's kind, each kind by its one loader
(``flows/loaders.py``, ``LOADERS``): a new kind needs a loader there and nothing else in the flow.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

import duckdb

from gpuvalue.flows import loaders as L
from gpuvalue.flows.matcher import catalog_matcher  # noqa: F401  (light to import: the reading commands use it)
from gpuvalue.flows.settings import Settings
from gpuvalue.flows.shopping import coverage  # noqa: F401  (light to import: rank and coverage use it)
from gpuvalue.models.records import PerfFigure
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers import registry
from gpuvalue.warehouse import checks, load, queries, ranking
from gpuvalue.warehouse.environment import is_environment_failure

log = logging.getLogger("gpuvalue.stages")

STAGE_ORDER = ("fetch", "parse", "load", "match", "perf", "estimate", "rank", "export")

# The kinds each warehouse stage stores, in the order they load (each kind's loader names its stage).
STAGE_KINDS = L.stage_kinds()

Batches = dict[str, list[ParsedSource]]  # per source, its parsed fetches, oldest first


@dataclass
class StageResult:
    """What one stage did to each source it stored (rows, or why it failed)."""

    rows: dict[str, int] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)
    warnings: dict[str, list[str]] = field(default_factory=dict)
    matched: dict[str, int] = field(default_factory=dict)  # listing sources: rows matched to a model
    seconds: dict[str, float] = field(default_factory=dict)


@dataclass
class StageContext:
    con: duckdb.DuckDBPyConnection
    settings: Settings
    loaded_at: datetime
    progress: Callable[[str, int, int], None] = lambda what, done, total: None
    note: Callable[[str], None] = lambda message: None  # a line about long work (the log, the live line)
    _matcher: object | None = None

    def matcher(self):
        if self._matcher is None:
            self._matcher = catalog_matcher(self.con)
        return self._matcher

    def forget_matcher(self) -> None:
        """The catalog or the connection changed: the next match builds the matcher anew."""
        self._matcher = None


def _store(ctx: StageContext, kind: str, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    return L.loader_for(kind).store(ctx, name, batches, result)


def _combine_measured(ctx: StageContext, batches: Batches, result: StageResult) -> None:
    """Every stored harness combined with the other measured figures (docs/performance.md); a failure
    fails the harness sources of this run, a card without a figure is a warning on its harness."""
    from gpuvalue.warehouse.harness import combine_and_store

    benchmarks = set(registry.names(kind="benchmark"))
    harnesses = [n for n in result.seconds
                 if n in benchmarks and not any(b.perf_tables for b in batches.get(n, []))]
    try:
        from gpuvalue.scrapers.harness_sources import harness_inputs

        combined = combine_and_store(ctx.con, ctx.loaded_at, ctx.settings.reference_gpu,
                                     benchmark_sources=registry.names(kind="benchmark"), make_inputs=harness_inputs)
    except Exception as exc:  # recorded on the harness sources; the run goes on
        log.error("combining the benchmark harnesses failed: %s", exc)
        for name in harnesses:
            result.failed[name] = f"combining: {type(exc).__name__}: {exc}"
        return
    for model, precision, harness, why in (combined.no_figure if combined else []):
        if harness in result.warnings:
            result.warnings[harness].append(f"{harness}: no {precision} figure for {model}: {why}")


def _store_kinds(ctx: StageContext, stage: str, batches: Batches, result: StageResult) -> None:
    """Each source of the stage's kinds in its own transaction; one failing never stops the others."""
    for kind in STAGE_KINDS[stage]:
        names = [n for n in registry.names(kind=kind) if n in batches] + sorted(
            n for n in batches if n not in registry.all_sources() and kind == "listing")  # CSV imports
        for i, name in enumerate(names, start=1):
            ctx.progress(f"{stage}: {name}", i - 1, len(names))
            t0 = time.perf_counter()
            try:
                result.rows[name] = _store(ctx, kind, name, batches[name], result)
            except Exception as exc:  # recorded per source; the run goes on
                if is_environment_failure(exc):  # a full disk is no source's failure: the run stops
                    raise
                log.error("loading %s failed: %s", name, exc)
                result.failed[name] = f"{type(exc).__name__}: {exc}"
            result.warnings[name] = [w for b in batches[name] for w in b.warnings]
            result.seconds[name] = time.perf_counter() - t0


# ---- the catalog and the performance estimate ------------------------------------------------

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


def catalog_features(con: duckdb.DuckDBPyConnection) -> dict[str, dict]:
    return queries.catalog_features(con)


def fitted_estimators(
    con: duckdb.DuckDBPyConnection, *, computed_at: datetime | None = None,
    note: Callable[[str], None] | None = None, rows: list[tuple] | None = None,
) -> tuple[dict, dict[str, dict]]:
    """The spec model per precision, fitted on the benchmark figures in the warehouse (local
    measurements excluded: they are what the model is applied to) and the per-workload ratios
    behind them, and the catalog's features.

    Each fit's cross-validated error is read from ``perf_estimate_cv`` when a fit on the same
    inputs computed it, else from the errors shipped with gpuvalue for the same inputs digest;
    otherwise it is computed. When ``computed_at`` is given (a writing connection), a shipped or
    computed error is stored in ``perf_estimate_cv``. ``note`` gets a line when a cross-validation
    starts and every tenth of its folds: about 20 s on 2 cores, once per change of
    inputs. ``rows``: ``queries.measured_perf_for_fit(con)`` when the caller already read it."""
    from gpuvalue.models.perf.digest import estimate_inputs_digest
    from gpuvalue.models.perf.workload import fit_estimator
    from gpuvalue.models.perf.measured import WorkloadRatio
    from gpuvalue.warehouse.estimate_cv import fill_form, fill_group_errors, known_cv_error, store_cv_error

    features = catalog_features(con)
    if rows is None:
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
        # A row kept before the per-kind errors were (schema 26) is cross-validated once more to fill them, by a
        # run (a reader uses the row as it is: its estimates then name no per-kind error until the next run).
        refill = known is not None and known.group_errors is None and computed_at is not None
        if refill:
            known = None
        progress = None
        if known is None and note is not None:
            note(f"estimate: no cross-validated error stored or shipped for these {precision} inputs; "
                 "cross-validating the fit (about 20 s on 2 cores; once per change of inputs)")
            progress = _cross_validation_progress(note, precision)
        est = fit_estimator(pm, features, precision, per_workload=per_workload,
                            known_cv_error=known.error if known else None, known_form=known.form if known else None,
                            known_group_errors=known.group_errors if known else None, progress=progress)
        form = est.form.code
        # Roofline v2 (no per-workload ratios) names no per-kind error: kept as none, not as unknown.
        errors = getattr(est, "group_errors", None) or {}
        if refill and computed_at is not None:
            fill_group_errors(con, digest, errors)
        if (known is None or not known.stored) and computed_at is not None and est.cv_median_abs_error is not None:
            store_cv_error(con, digest, precision, est.version, len(est.trained_models), est.cv_median_abs_error,
                           known.computed_at if known else computed_at, form, errors)
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
    from gpuvalue.models.perf.estimate_coverage import mark_uncovered

    rows = queries.measured_perf_for_fit(con)
    estimators, features = fitted_estimators(con, computed_at=loaded_at, note=note, rows=rows)
    measured: dict[str, dict[str, float]] = defaultdict(dict)  # precision -> model -> the ranking's figure
    for row in rows:
        measured[row[1]][row[0]] = row[2]
    figures: list[PerfFigure] = []
    for precision, est in estimators.items():
        for feat in features.values():
            fig = est.estimate(feat)
            if fig is not None:
                figures.append(mark_uncovered(fig, feat, measured[precision], features))
    with load.transaction(con):
        n = load.replace_perf(con, "estimate", figures, loaded_at)
    # The shown figures weigh every source and the estimate (docs/performance.md, "Precision-weighted figures").
    from gpuvalue.models.perf.measured import DEFAULT_REFERENCE
    from gpuvalue.warehouse.perf_weighted import weigh_and_store

    reference = next((est.reference for est in estimators.values()), DEFAULT_REFERENCE)
    weigh_and_store(con, estimators, reference, loaded_at)
    return n


# ---- the warehouse stages ----------------------------------------------------------------------

def load_stage(ctx: StageContext, batches: Batches) -> tuple[StageResult, int, int]:
    """Specs (and the catalog they merge into), price indexes and rental offers."""
    result = StageResult()
    _store_kinds(ctx, "load", batches, result)
    models, conflicts = rebuild_catalog(ctx.con)
    ctx.forget_matcher()  # the catalog changed
    return result, models, conflicts


def match_stage(ctx: StageContext, batches: Batches) -> StageResult:
    """Listings, matched against the catalog, converted to USD and stored."""
    result = StageResult()
    _store_kinds(ctx, "match", batches, result)
    return result


def perf_stage(ctx: StageContext, batches: Batches) -> StageResult:
    """Measured training figures, then inference figures (their own table, never the ranking)."""
    result = StageResult()
    _store_kinds(ctx, "perf", batches, result)
    _combine_measured(ctx, batches, result)
    return result


def estimate_stage(ctx: StageContext) -> int:
    return estimate_perf(ctx.con, ctx.loaded_at, note=ctx.note)


def rank_stage(ctx: StageContext, days: Iterable[date]) -> dict[date, int]:
    """Prices and the ranking for each day: how many models each day ranks."""
    days = list(days)
    s = ctx.settings
    ranked = {}
    for i, day in enumerate(days, start=1):
        ctx.progress("ranking", i - 1, len(days))
        ranked[day] = ranking.materialize_day(ctx.con, day, precision=s.precision, reference=s.reference_gpu,
                                              window_days=s.price_window_days, min_count=s.price_min_count,
                                              comparable_days=s.price_comparable_days)
    ctx.progress("ranking", len(days), len(days))
    return ranked


def check_stage(ctx: StageContext) -> None:
    """The integrity checks after every load: a failed one stops the run and names itself."""
    checks.raise_on_failure(ctx.con)


def ranked_days(con: duckdb.DuckDBPyConnection) -> list[date]:
    return queries.ranked_days(con)


def register_sources(con: duckdb.DuckDBPyConnection) -> None:
    """The registry's description of every source, for exports and ad-hoc SQL."""
    queries.upsert_source_catalog(con, [
        {"name": n, "kind": s.kind, "export_kind": s.export_kind or s.kind, "attribution": s.attribution,
         "licence": s.licence, "label": s.label, "statistic": s.statistic}
        for n, s in registry.all_sources().items()
    ])


def rerank_after(ctx: StageContext, batches: Batches, *, stages: Sequence[str], days: Iterable[date]) -> dict:
    """Run the named warehouse stages in the one order, then re-rank ``days`` and check."""
    out: dict = {}
    for stage in STAGE_ORDER:
        if stage not in stages:
            continue
        if stage == "load":
            out["load"] = load_stage(ctx, batches)
        elif stage == "match":
            out["match"] = match_stage(ctx, batches)
        elif stage == "perf":
            out["perf"] = perf_stage(ctx, batches)
        elif stage == "estimate":
            out["estimate"] = estimate_stage(ctx)
        elif stage == "rank":
            out["rank"] = rank_stage(ctx, days)
    check_stage(ctx)
    return out
