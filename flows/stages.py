"""The staged pipeline, written once: fetch -> parse -> load -> match -> perf -> estimate -> rank -> export.

The daily flow runs every stage, each as its own Prefect task (``flows/daily.py``); reparse runs
parse..rank on archived pages, ``import listings`` runs match..rank on a CSV, ``rematch`` runs
match..rank on the stored listings. They all call the functions here, so a stage behaves the same
whoever runs it. Records are stored by their source's kind (``KIND_LOADERS``): a new kind needs a
loader here and nothing else in the flow.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime

import duckdb

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.settings import Settings
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers import registry
from gpuvalue.warehouse import checks, load, queries

log = logging.getLogger("gpuvalue.stages")

STAGE_ORDER = ("fetch", "parse", "load", "match", "perf", "estimate", "rank", "export")

# The kinds each warehouse stage stores, in the order they load.
STAGE_KINDS = {
    "load": ("spec", "price_index", "rental", "fx"),  # the rates before "match": listings convert at their day's
    "match": ("listing",),
    "perf": ("benchmark", "inference"),
}

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
            self._matcher = P.catalog_matcher(self.con)
        return self._matcher


# ---- loaders by kind -------------------------------------------------------------------------

def _load_specs(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    return sum(P.load_specs(ctx.con, b) for b in batches)


def _load_listings(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    n = matched = 0
    try:
        vocabulary = registry.get(name).vocabulary
    except KeyError:  # a CSV import brings no vocabulary of its own
        vocabulary = None
    matcher = ctx.matcher().with_vocabulary(vocabulary.junk_words if vocabulary else None)
    words = vocabulary.condition_words if vocabulary else None
    from gpuvalue.warehouse.fx import daily_rates

    rates = daily_rates(ctx.con)  # each price at its own day's rate (the load stage stored the day's rates)
    for b in batches:
        rows = P.listing_rows(b.listings, matcher, words, rates)  # an Arrow table, loaded without a copy
        n += P.load_listings(ctx.con, rows)
        matched += P.matched_rows(rows)
    result.matched[name] = matched
    return n


def _load_benchmark(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    # A benchmark fetch is the whole truth for its source: the newest one replaces the rest.
    newest = batches[-1]
    if newest.perf_tables:
        return P.load_measured_perf(ctx.con, P.perf_from_tables(newest, ctx.settings.reference_gpu), ctx.loaded_at)
    loader = EXTRA_LOADERS.get("benchmark")
    return loader(ctx, name, batches) if loader else 0


def _load_inference(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    return P.load_inference(ctx.con, batches[-1], ctx.loaded_at)


def _load_harness(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    """A benchmark harness's figures as published (its newest fetch replaces the rest); they are
    combined with the other measured figures once the stage has stored every benchmark source."""
    from gpuvalue.scrapers.harness_sources import figures_from_records
    from gpuvalue.warehouse.harness import load_harness

    return load_harness(ctx.con, name, figures_from_records(name, batches[-1].records), ctx.loaded_at)


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


def _load_price_index(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    """A third kind of price: stored apart (price_index_monthly), never mixed into own medians."""
    from gpuvalue.warehouse.price_index import load_price_index

    points = [p for b in batches for p in b.records]
    with load.transaction(ctx.con):
        return load_price_index(ctx.con, points, ctx.loaded_at, source=name)


def _load_rental(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    """Cloud rental offers: stored by the date of their data (rental_offers), then the prices per model
    and date rebuilt. What was dropped or left unmatched leads the source's warnings in the run summary."""
    from gpuvalue.warehouse.rental import load_rental_offers

    offers = [o for b in batches for o in b.records]
    with load.transaction(ctx.con):
        rows, warning = load_rental_offers(ctx.con, offers, ctx.loaded_at, source=name)
    if batches:
        batches[0].warnings.insert(0, warning)
    return rows


def _load_fx(ctx: StageContext, name: str, batches: list[ParsedSource]) -> int:
    """Exchange rates by day (fx_rates), before any listing is converted."""
    from gpuvalue.warehouse.fx import load_fx_rates

    rates = [r for b in batches for r in b.records]
    with load.transaction(ctx.con):
        return load_fx_rates(ctx.con, rates, source=name)


# Kinds beyond the ranking's first four, each with its loader (a kind without one fails its source).
EXTRA_LOADERS: dict[str, Callable[[StageContext, str, list[ParsedSource]], int]] = {
    "price_index": _load_price_index,
    "rental": _load_rental,
    "fx": _load_fx,
    "benchmark": _load_harness,  # benchmark sources without Lambda-format tables
}


def _store(ctx: StageContext, kind: str, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    if kind == "spec":
        return _load_specs(ctx, name, batches)
    if kind == "listing":
        return _load_listings(ctx, name, batches, result)
    if kind == "benchmark":
        return _load_benchmark(ctx, name, batches)
    if kind == "inference":
        return _load_inference(ctx, name, batches)
    loader = EXTRA_LOADERS.get(kind)
    if loader is None:
        raise RuntimeError(f"no loader for records of kind {kind!r}")
    return loader(ctx, name, batches)


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
                log.error("loading %s failed: %s", name, exc)
                result.failed[name] = f"{type(exc).__name__}: {exc}"
            result.warnings[name] = [w for b in batches[name] for w in b.warnings]
            result.seconds[name] = time.perf_counter() - t0


# ---- the warehouse stages ----------------------------------------------------------------------

def load_stage(ctx: StageContext, batches: Batches) -> tuple[StageResult, int, int]:
    """Specs (and the catalog they merge into), price indexes and rental offers."""
    result = StageResult()
    _store_kinds(ctx, "load", batches, result)
    models, conflicts = P.rebuild_catalog(ctx.con)
    ctx._matcher = None  # the catalog changed
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
    return P.estimate_perf(ctx.con, ctx.loaded_at, note=ctx.note)


def rank_stage(ctx: StageContext, days: Iterable[date]) -> dict[date, int]:
    """Prices and the ranking for each day: how many models each day ranks."""
    days = list(days)
    s = ctx.settings
    ranked = {}
    for i, day in enumerate(days, start=1):
        ctx.progress("ranking", i - 1, len(days))
        ranked[day] = load.materialize_day(ctx.con, day, precision=s.precision, reference=s.reference_gpu,
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
         "licence": s.licence, "label": s.label}
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
