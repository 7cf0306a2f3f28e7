"""One loader per record kind, registered by kind in one place (``LOADERS``).

A source declares its kind (``scrapers/source.py``); its parsed fetches are stored by the loader
of that kind, in the warehouse stage the loader names. A new kind is one entry here (and its name in
``KNOWN_KINDS``, which tests/flows/test_loaders.py holds equal to these), plus the model files of
the tables it fills (docs/warehouse.md).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol

import duckdb
import pyarrow as pa

from gpuvalue.flows.enrich import harness_figures, index_points, listing_enricher, rental_offers
from gpuvalue.models.listing_enrichment import matched_rows
from gpuvalue.models.records import InferenceFigure, PerfFigure
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers import registry
from gpuvalue.warehouse import load, queries

class StageContext(Protocol):
    """What a loader needs of the stage running it (flows/stages.py's StageContext)."""

    con: duckdb.DuckDBPyConnection
    settings: Any
    loaded_at: datetime

    def matcher(self) -> Any: ...


class StageResult(Protocol):
    """Where a loader notes more than its row count (flows/stages.py's StageResult)."""

    matched: dict[str, int]


@dataclass(frozen=True)
class Loader:
    """How one kind's records are stored: the stage that stores them and the function that does."""

    kind: str
    stage: str  # load | match | perf
    store: Callable[[StageContext, str, list[ParsedSource], StageResult], int]  # rows stored


# ---- the loads, one per table family (also called by imports, rematch and tests) -------------------

def load_specs(con: duckdb.DuckDBPyConnection, parsed: ParsedSource) -> int:
    with load.transaction(con):
        return load.load_gpu_specs(con, parsed.specs)


def load_listings(con: duckdb.DuckDBPyConnection, rows: pa.Table | Sequence[dict]) -> int:
    with load.transaction(con):
        return load.load_listings(con, rows)


def perf_from_tables(parsed: ParsedSource, reference: str):
    from gpuvalue.models.perf.measured import relative_perf_from_lambda

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


# ---- the loaders by kind ------------------------------------------------------------------------

def _store_specs(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    return sum(load_specs(ctx.con, b) for b in batches)


def _store_listings(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    """A listing source's records, enriched (flows/enrich.py), then stored, fetch by fetch."""
    n = matched = 0
    enrich = listing_enricher(ctx, name)
    for b in batches:
        rows = enrich(b.listings)  # an Arrow table, loaded without a copy
        n += load_listings(ctx.con, rows)
        matched += matched_rows(rows)
    result.matched[name] = matched
    return n


def _store_benchmark(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    """A benchmark fetch is the whole truth for its source: the newest one replaces the rest. Lambda's
    tables become figures at once; a harness's figures are stored as published, and combined with the
    other measured figures once the stage has stored every benchmark source (stages.py)."""
    newest = batches[-1]
    if newest.perf_tables:
        return load_measured_perf(ctx.con, perf_from_tables(newest, ctx.settings.reference_gpu), ctx.loaded_at)
    from gpuvalue.scrapers.harness_sources import figures_from_records
    from gpuvalue.warehouse.harness import load_harness

    figures = harness_figures(name, figures_from_records(name, newest.records))  # resolved by the enrich step
    return load_harness(ctx.con, name, figures, ctx.loaded_at)


def _store_inference(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    return load_inference(ctx.con, batches[-1], ctx.loaded_at)


def _store_price_index(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    """A third kind of price: stored apart (price_index_monthly), never mixed into own medians."""
    from gpuvalue.warehouse.price_index import load_price_index

    points = index_points(name, [p for b in batches for p in b.records])  # matched by the enrich step
    with load.transaction(ctx.con):
        return load_price_index(ctx.con, points, ctx.loaded_at, source=name)


def _store_rental(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    """Cloud rental offers: stored by the date of their data (rental_offers), then the prices per model
    and date rebuilt, with the source's declaration of its provider's own score, if it makes one. What was
    dropped or left unmatched leads the source's warnings in the run summary."""
    from gpuvalue.warehouse.rental import load_rental_offers

    # Matched and converted by the enrich step (flows/enrich.py), then stored.
    offers, notes = rental_offers(ctx.con, name, [o for b in batches for o in b.records])
    with load.transaction(ctx.con):
        rows, warning = load_rental_offers(ctx.con, offers, ctx.loaded_at, source=name,
                                           score=registry.get(name).provider_score, notes=notes)
    if batches:
        batches[0].warnings.insert(0, warning)
    return rows


def _store_fx(ctx: StageContext, name: str, batches: list[ParsedSource], result: StageResult) -> int:
    """Exchange rates by day (fx_rates), before any listing is converted; a rate no currency has, or a
    jump from the previous plausible day, is refused and named first in the source's warnings."""
    from gpuvalue.warehouse.fx import load_fx_rates, plausible_new_rates

    rates, refused = plausible_new_rates(ctx.con, [r for b in batches for r in b.records])
    if batches and refused:
        shown = [f"{name}: {line}" for line in refused[:3]]
        if len(refused) > 3:
            shown.append(f"{name}: {len(refused) - 3} more rate(s) refused as implausible")
        batches[0].warnings[:0] = shown
    with load.transaction(ctx.con):
        return load_fx_rates(ctx.con, rates, source=name)


# Every kind's loader, in the order the stages store them (within a stage, kind by kind).
LOADERS: dict[str, Loader] = {loader.kind: loader for loader in (
    Loader("spec", "load", _store_specs),
    Loader("price_index", "load", _store_price_index),
    Loader("rental", "load", _store_rental),
    Loader("fx", "load", _store_fx),  # the rates before "match": listings convert at their day's
    Loader("listing", "match", _store_listings),
    Loader("benchmark", "perf", _store_benchmark),
    Loader("inference", "perf", _store_inference),
)}


def stage_kinds() -> dict[str, tuple[str, ...]]:
    """The kinds each warehouse stage stores, in the order they load."""
    out: dict[str, list[str]] = {}
    for loader in LOADERS.values():
        out.setdefault(loader.stage, []).append(loader.kind)
    return {stage: tuple(kinds) for stage, kinds in out.items()}


def loader_for(kind: str) -> Loader:
    try:
        return LOADERS[kind]
    except KeyError:
        raise RuntimeError(f"no loader for records of kind {kind!r}") from None
