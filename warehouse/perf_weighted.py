"""The shown figures: every card's evidence weighted by its source's reliability, stored as source
``weighted`` with an 80 % interval on every figure (``models/perf/weighted.py`` holds the method).

Runs after the estimate stage: the estimate is evidence too, and for a measured card the estimate's
evidence is its held-out prediction (``WorkloadEstimator.held_out``), which never saw the card.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping
from datetime import datetime

import duckdb
import pyarrow as pa

from gpuvalue.models.perf.label import ON_ROCM
from gpuvalue.models.perf.same_chip import Bounded, Shown, bound_estimates
from gpuvalue.models.perf.weighted import (
    ESTIMATE,
    LAMBDA,
    WEIGHTED,
    Evidence,
    describe,
    interval,
    reliabilities,
    weighted_figure,
)
from gpuvalue.models.records import PerfFigure
from gpuvalue.warehouse import load
from gpuvalue.warehouse.sql_files import dicts, run_on_batch


def _group(source: str) -> str:
    return LAMBDA if source.startswith("lambda") else source


def weigh_and_store(con: duckdb.DuckDBPyConnection, estimators: Mapping[str, object], reference: str,
                    loaded_at: datetime) -> dict[str, dict[str, float]]:
    """Replace the weighted figures and every figure's interval; per precision, each source's log
    error deviation (what the weights were made of)."""
    stored = dicts(con, "perf_weighted_evidence")
    features = dicts(con, "catalog_features")
    catalog = {r["model"]: r for r in features}
    bounded_estimates: dict[tuple[str, str], Bounded] = {}
    figures: list[PerfFigure] = []
    intervals: list[dict] = []
    sigmas_out: dict[str, dict[str, float]] = {}
    by_precision: dict[str, list[dict]] = defaultdict(list)
    for r in stored:
        by_precision[r["precision"]].append(r)
    for precision, found in sorted(by_precision.items()):
        held_out = getattr(estimators.get(precision), "held_out", {}) or {}
        estimates = {r["model"]: r for r in found if r["source"] == ESTIMATE}
        base = min((r["uncertainty"] for r in estimates.values() if r["uncertainty"]), default=None)
        measured: dict[str, list[dict]] = defaultdict(list)
        for r in found:
            if r["measured"]:
                measured[r["model"]].append(r)
        cards: dict[str, list[tuple[Evidence, dict]]] = {}
        for model in set(measured) | set(estimates):
            pieces = [(Evidence(source=_group(r["source"]), value=r["relative_perf"], label=r["source"],
                                workloads=r["workloads"] or 0, rocm=ON_ROCM in (r["method"] or "")), r)
                      for r in measured.get(model, []) if r["relative_perf"] > 0]
            est = estimates.get(model)
            if est is not None and est["relative_perf"] > 0:
                value = held_out.get(model, est["relative_perf"]) if pieces else est["relative_perf"]
                factor = est["uncertainty"] / base if base and est["uncertainty"] else 1.0
                label = "estimate (held out)" if pieces and model in held_out else ESTIMATE
                pieces.append((Evidence(source=ESTIMATE, value=value, label=label, factor=factor), est))
            if pieces:
                cards[model] = pieces
        sigmas = reliabilities({m: [e for e, _ in p] for m, p in cards.items() if len(p) > 1}, reference)
        for e, _ in (x for p in cards.values() for x in p):
            sigmas.setdefault(e.source, max(sigmas.values(), default=0.1))
        sigmas_out[precision] = sigmas
        shown: dict[str, Shown] = {}
        for model, pieces in sorted(cards.items()):
            evidence = [e for e, _ in pieces]
            rows = measured.get(model, [])
            for e, r in pieces:
                sigma = sigmas[e.source] * e.factor * (math.sqrt(2) if e.workloads == 1 else 1.0)
                low, high = (1.0, 1.0) if model == reference else interval(r["relative_perf"], sigma)
                intervals.append({"model": model, "precision": precision, "source": r["source"],
                                  "perf_low": round(low, 4), "perf_high": round(high, 4)})
                if not rows and r["source"] == ESTIMATE:
                    shown[model] = Shown(r["relative_perf"], low, high)
            if not rows:
                continue  # an unmeasured card's shown figure is its estimate, with the interval above
            if model == reference:
                value, low, high = 1.0, 1.0, 1.0
                method = "weighted: the reference card, 1.0 by definition in every source"
            else:
                fig = weighted_figure(evidence, sigmas)
                value, low, high, method = fig.value, fig.low, fig.high, describe(fig)
            if any(e.rocm for e in evidence):
                method += f"; {ON_ROCM}"
            dates = [r["as_of"] for r in rows if r["as_of"] is not None]
            figures.append(PerfFigure(model=model, precision=precision, relative_perf=round(value, 4),  # type: ignore[arg-type]
                                      source=WEIGHTED, method=method, reference=reference, measured=True,
                                      workloads=sum(r["workloads"] or 0 for r in rows),
                                      as_of=max(dates) if dates else None))
            intervals.append({"model": model, "precision": precision, "source": WEIGHTED,
                              "perf_low": round(low, 4), "perf_high": round(high, 4)})
            shown[model] = Shown(value, low, high)
        # Same-chip bounds on the estimates shown for unmeasured cards (models/perf/same_chip.py).
        own = {m: r["relative_perf"] for m, r in estimates.items()}
        moved = bound_estimates(shown, set(measured), catalog, precision, own)  # type: ignore[arg-type]
        for model, bound in moved.items():
            bounded_estimates[(model, precision)] = bound
        for row in intervals:
            hit = moved.get(row["model"]) if row["precision"] == precision and row["source"] == ESTIMATE else None
            if hit is not None:
                row["perf_low"], row["perf_high"] = round(hit.low, 4), round(hit.high, 4)
    with load.transaction(con):
        if bounded_estimates:
            load.replace_perf(con, ESTIMATE, _estimates_bounded(stored, bounded_estimates, reference), loaded_at)
        load.replace_perf(con, WEIGHTED, figures, loaded_at)
        table = pa.Table.from_pylist(intervals, schema=pa.schema([
            ("model", pa.string()), ("precision", pa.string()), ("source", pa.string()),
            ("perf_low", pa.float64()), ("perf_high", pa.float64())]))
        run_on_batch(con, "incoming_intervals", table, "perf_set_intervals")
    return sigmas_out


def _estimates_bounded(stored: list[dict], bounded: Mapping[tuple[str, str], Bounded], reference: str) -> list[PerfFigure]:
    """Every stored estimate, the bounded ones at their bounded figure with the bound in their method."""
    out = []
    for r in stored:
        if r["source"] != ESTIMATE:
            continue
        value, method = r["relative_perf"], r["method"] or ""
        b = bounded.get((r["model"], r["precision"]))
        if b is not None:
            value = b.value
            method += f"; {b.note}" if b.note else ""  # an interval cut by measured siblings moves no figure
        out.append(PerfFigure(model=r["model"], precision=r["precision"], relative_perf=round(value, 4),
                              source=ESTIMATE, method=method, reference=reference, measured=bool(r["measured"]),
                              workloads=r["workloads"] or 0, uncertainty=r["uncertainty"], as_of=r["as_of"]))
    return out
