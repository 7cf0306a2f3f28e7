"""Benchmark-harness figures in the warehouse: stored as published (``harness_figures``), then
combined with the other measured figures into ``perf``, ``perf_workload`` and ``perf_scaling``.

A harness source's load stores its figures only. The combining runs once after every benchmark
source of a run is stored (``combine_and_store``), because a harness without the reference card is
chained through cards other sources measured, and a card's combined figure needs all its sources.
The method: ``gpuvalue.models.perf.combine`` and docs/performance.md.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime

import duckdb
import pyarrow as pa

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.combine import COMBINED, CombinedPerf, HarnessInput, combine_measured
from gpuvalue.models.perf.measured import DEFAULT_REFERENCE, WorkloadRatio
from gpuvalue.models.records import PerfFigure
from gpuvalue.warehouse import load, record_tables
from gpuvalue.warehouse.sql_files import dicts, rows

NOT_IN_CATALOG = "not in the catalog"
# Sources whose perf rows are not another measured source's figures.
_NOT_MEASURED_SOURCES = ("local", "estimate", COMBINED, "weighted")

# The columns of a stored figure (inserted by name; sql/harness_figures_stored.sql reads all but loaded_at).
_COLUMNS = (
    "harness", "device", "model", "excluded", "workload", "mode", "precision", "metric", "value", "batch_size",
    "batch_basis", "gpu_count", "framework", "framework_version", "cuda", "rocm", "cudnn", "run_date", "series",
    "run", "baseline_run", "iterations", "note", "loaded_at",
)
_SCHEMA = pa.schema([
    ("harness", pa.string()), ("device", pa.string()), ("model", pa.string()), ("excluded", pa.string()),
    ("workload", pa.string()), ("mode", pa.string()), ("precision", pa.string()), ("metric", pa.string()),
    ("value", pa.float64()), ("batch_size", pa.int32()), ("batch_basis", pa.string()), ("gpu_count", pa.int32()),
    ("framework", pa.string()), ("framework_version", pa.string()), ("cuda", pa.string()), ("rocm", pa.string()),
    ("cudnn", pa.string()), ("run_date", pa.date32()), ("series", pa.string()), ("run", pa.string()),
    ("baseline_run", pa.string()), ("iterations", pa.int32()), ("note", pa.string()),
    ("loaded_at", pa.timestamp("us")),
])


def with_catalog(figures: Sequence[HarnessFigure], known: set[str]) -> list[HarnessFigure]:
    """Figures whose model the catalog lacks are kept, out of the ranking, with that reason."""
    out = []
    for fig in figures:
        if fig.model is not None and fig.model not in known and fig.excluded is None:
            fig = fig.model_copy(update={"excluded": NOT_IN_CATALOG})
        out.append(fig)
    return out


def replace_harness_figures(con: duckdb.DuckDBPyConnection, harness: str, figures: Sequence[HarnessFigure],
                            loaded_at: datetime) -> int:
    """A harness's figures replace its previous ones (its newest fetch is the whole truth)."""
    others = sorted({f.harness for f in figures} - {harness})
    if others:
        raise ValueError(f"figures of {', '.join(others)} passed as {harness}'s")
    if any(f.resolve_as is not None for f in figures):
        raise ValueError(f"figures of {harness} not resolved yet (the enrich stage resolves their devices)")
    stamp = _naive_utc(loaded_at)
    batch = []
    for f in figures:
        row = f.model_dump()
        row["run_date"] = row.pop("date")
        row["loaded_at"] = stamp
        batch.append({c: row[c] for c in _COLUMNS})
    incoming = pa.Table.from_pylist(batch, schema=_SCHEMA) if batch else None
    return record_tables.replace(con, HarnessFigure.stored_as, incoming, source=harness)


def _naive_utc(moment: datetime) -> datetime:
    from datetime import timezone

    return moment.astimezone(timezone.utc).replace(tzinfo=None) if moment.tzinfo else moment


def load_harness(con: duckdb.DuckDBPyConnection, name: str, figures: Iterable[HarnessFigure], loaded_at: datetime) -> int:
    """Store one harness source's figures (a device the catalog lacks kept with that reason); the
    flow joins a source's records with its runs' side files first (scrapers/harness_sources.py)."""
    from gpuvalue.warehouse import queries

    figures = with_catalog([f for f in figures if isinstance(f, HarnessFigure)], queries.catalog_model_names(con))
    with load.transaction(con):
        return replace_harness_figures(con, name, figures, loaded_at)


def stored_harness_figures(con: duckdb.DuckDBPyConnection) -> dict[str, list[HarnessFigure]]:
    out: dict[str, list[HarnessFigure]] = {}
    for data in dicts(con, "harness_figures_stored"):
        data["date"] = data.pop("run_date")
        fig = HarnessFigure(**data)
        out.setdefault(fig.harness, []).append(fig)
    return out


def other_measured(con: duckdb.DuckDBPyConnection, derived: Iterable[str]) -> tuple[list[PerfFigure],
                                                                                     list[WorkloadRatio]]:
    """The other measured sources' figures (Lambda's) and their per-workload ratios."""
    skip = {"skip": [*_NOT_MEASURED_SOURCES, *derived]}
    figures = [
        PerfFigure(model=r[0], precision=r[1], relative_perf=r[2], source=r[3], method=r[4], reference=r[5],
                   measured=True, workloads=r[6] or 0, as_of=r[7])
        for r in rows(con, "harness_other_measured_perf", skip)
    ]
    ratios = [
        WorkloadRatio(model=r[0], precision=r[1], source=r[2], workload=r[3], ratio=r[4])
        for r in rows(con, "harness_other_measured_ratios", skip)
    ]
    return figures, ratios


def derived_sources(con: duckdb.DuckDBPyConnection, benchmark_sources: Iterable[str] = ()) -> list[str]:
    """Every source name whose perf/perf_workload/perf_scaling rows the combining writes: the
    benchmark sources (the flow passes the registry's; a harness's rows carry its name; Lambda's rows
    carry their file's name, never the source's), the stored harnesses and ``combined``."""
    stored = {r[0] for r in rows(con, "harness_stored_names")}
    return sorted({*benchmark_sources, *stored, COMBINED})


def _plain_inputs(figures: Mapping[str, list[HarnessFigure]]) -> list[HarnessInput]:
    """Each harness with no declared anchors (the flow passes its sources' declarations instead)."""
    return [HarnessInput(name, figures[name], (), None) for name in sorted(figures)]


def combine_and_store(con: duckdb.DuckDBPyConnection, loaded_at: datetime,
                      reference: str = DEFAULT_REFERENCE, *, benchmark_sources: Iterable[str] = (),
                      make_inputs: Callable[[Mapping[str, list[HarnessFigure]]], list[HarnessInput]] | None = None,
                      ) -> CombinedPerf | None:
    """Combine every stored harness with the other measured figures and replace the derived rows:
    each harness's perf/perf_workload/perf_scaling rows and the ``combined`` rows. None (and no
    derived rows left) when no harness figure is stored."""
    figures = stored_harness_figures(con)
    sources = derived_sources(con, benchmark_sources)
    with load.transaction(con):
        if not figures:
            _store(con, None, sources, loaded_at)
            return None
        others, other_ratios = other_measured(con, sources)
        vendors = dict(rows(con, "harness_catalog_vendors"))
        result = combine_measured((make_inputs or _plain_inputs)(figures), others, other_ratios, reference=reference,
                                  vendors=vendors)
        _store(con, result, sources, loaded_at)
    return result


def _store(con: duckdb.DuckDBPyConnection, result: CombinedPerf | None, sources: Sequence[str],
           loaded_at: datetime) -> None:
    """Replace every derived source's rows (with nothing where ``result`` has none)."""
    by_source: dict[str, list[PerfFigure]] = {s: [] for s in sources}
    workloads: dict[str, list[dict]] = {s: [] for s in sources}
    scaling: dict[str, list[dict]] = {s: [] for s in sources}
    if result is None:
        result = CombinedPerf(figures=[], combined=[], per_workload=[], scaling=[], spread={})
    for fig in [*result.figures, *result.combined]:
        by_source.setdefault(fig.source, []).append(fig)
    for r in result.per_workload:
        workloads.setdefault(r.source, []).append(r.model_dump())
    for s in result.scaling:
        scaling.setdefault(s.source, []).append(s.model_dump(exclude={"workloads"}))
    for source, figs in by_source.items():
        load.replace_perf(con, source, figs, loaded_at)
    for source, source_rows in workloads.items():
        load.replace_perf_workload(con, source, source_rows)
    for source, source_rows in scaling.items():
        load.replace_scaling(con, source, source_rows)
