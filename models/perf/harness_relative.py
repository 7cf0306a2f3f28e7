"""One harness's figures as per-workload throughput ratios, and its multi-GPU runs as scaling.

A harness's absolute numbers mean little outside it (milliseconds at batch 12 on random images, a
score with a per-version constant), but the ratio of two cards' throughput on the same workload,
mode, precision, batch and series of one harness is as comparable as Lambda's ratios are
(``gpuvalue.models.perf.measured``): same code, same input, only the card differs.

Rules:

- Only figures with a catalog model and no exclusion count; only single-GPU figures make ratios.
- Two figures compare when workload, mode, precision, metric, framework, series and batch agree.
  A harness that lets each device pick its batch (``batch_basis="per-device"``) compares each
  device's best throughput instead; a figure whose batch is unknown compares with nothing.
- Repeated runs of one model in one comparison group are combined by their median.
- The anchor of a group is the reference card (GeForce RTX 3090) where the group has it, else the
  first of the harness's own anchors that it has; every ratio names its anchor. Ratios to an
  anchor other than the reference are kept for combining through shared cards, which is decided
  elsewhere: nothing here chains harnesses.
- A whole-system figure (``SYSTEM_METRICS``: MLPerf's minutes to train) compares per accelerator
  with systems of the same accelerator count only, and never gives scaling.
- Multi-GPU figures give ``ScalingFigure`` rows as Lambda's do: throughput with n GPUs over n times
  the same card's single-GPU throughput (1.0 == linear), geometric mean over workloads of the
  per-workload medians, training only, implausible cells (above ``MAX_PLAUSIBLE_EFFICIENCY``)
  dropped. The single-GPU side is the same host's run where the harness published one.
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence

from pydantic import BaseModel, ConfigDict

from gpuvalue.models.harness import SYSTEM_METRICS, HarnessFigure, HarnessPrecision, Metric, Mode
from gpuvalue.models.perf.measured import (
    DEFAULT_REFERENCE,
    MAX_PLAUSIBLE_EFFICIENCY,
    ScalingFigure,
    WorkloadRatio,
)
from gpuvalue.models.records import Record


class HarnessRatio(Record):
    """One model's throughput over its group's anchor on one workload of one harness."""

    harness: str
    model: str
    anchor: str  # the catalog model the ratio is against
    workload: str
    mode: Mode
    precision: HarnessPrecision
    metric: Metric
    framework: str
    series: str | None = None
    batch_size: int | None = None  # per GPU; None for per-device batches
    batch_assumed: bool = False  # either side's batch is the harness default, not stated by the run
    ratio: float  # > 1: faster than the anchor
    runs: int = 1  # the model's figures behind it (their median)
    anchor_runs: int = 1

    @property
    def workload_label(self) -> str:
        """Workload name unique within the harness: the series is part of it where there is one."""
        return self.workload if self.series is None else f"{self.workload} ({self.series})"


class HarnessRelative(BaseModel):
    """Everything one harness gives: ratios (to the reference where it can, else to its own
    anchor, as each ratio says), scaling rows, and notes on groups left without an anchor."""

    model_config = ConfigDict(frozen=True)

    harness: str
    reference: str
    ratios: list[HarnessRatio]
    scaling: list[ScalingFigure]
    notes: list[str] = []

    def workload_ratios(self) -> list[WorkloadRatio]:
        """Training ratios against the reference card at fp16/fp32, in the shape Lambda's
        per-workload ratios have (the warehouse's ``perf_workload``), one per model, precision and workload."""
        chosen = [
            r for r in self.ratios
            if r.anchor == self.reference and r.mode == "train" and r.precision in ("fp16", "fp32")
        ]
        slots: dict[tuple[str, str, str], int] = defaultdict(int)
        for r in chosen:
            slots[(r.model, r.precision, r.workload_label)] += 1
        out = []
        for r in chosen:
            label = r.workload_label
            if slots[(r.model, r.precision, label)] > 1:  # the same workload at several batches
                label = f"{label} bs{r.batch_size}"
            out.append(
                WorkloadRatio(model=r.model, precision=r.precision,  # type: ignore[arg-type]  # fp16/fp32 only, above
                              source=self.harness, workload=label, ratio=r.ratio)
            )
        return out


def _group_key(fig: HarnessFigure) -> tuple | None:
    if fig.batch_basis == "per-device":
        batch: object = "per-device"
    elif fig.batch_size is not None:
        batch = fig.batch_size
    else:
        return None
    if fig.metric in SYSTEM_METRICS:  # whole systems compare with systems of as many accelerators
        batch = f"{batch}, {fig.gpu_count} accelerators"
    return (fig.workload, fig.mode, fig.precision, fig.metric, fig.framework, fig.series, batch)


def _compares_as_one(fig: HarnessFigure) -> bool:
    """Whether a figure makes ratios (one GPU, or a whole system compared per accelerator with
    systems of its size) rather than multi-GPU scaling."""
    return fig.gpu_count == 1 or fig.metric in SYSTEM_METRICS


def _usable(fig: HarnessFigure) -> bool:
    return fig.model is not None and fig.excluded is None


def _per_gpu_throughput(fig: HarnessFigure) -> float:
    return fig.throughput / fig.gpu_count


def _geomean(values: Sequence[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def harness_relative(
    figures: Iterable[HarnessFigure],
    *,
    reference: str = DEFAULT_REFERENCE,
    anchors: Sequence[str] = (),
) -> HarnessRelative:
    """Ratios and scaling of one harness's figures (all figures must share one ``harness``)."""
    figs = list(figures)
    names = {f.harness for f in figs}
    if len(names) > 1:
        raise ValueError(f"figures of several harnesses: {', '.join(sorted(names))}")
    harness = names.pop() if names else ""

    singles: dict[tuple, dict[str, list[HarnessFigure]]] = defaultdict(lambda: defaultdict(list))
    multis: list[HarnessFigure] = []
    for fig in figs:
        if not _usable(fig):
            continue
        key = _group_key(fig)
        if key is None:
            continue
        if _compares_as_one(fig):
            singles[key][fig.model].append(fig)  # type: ignore[index]
        else:
            multis.append(fig)

    ratios: list[HarnessRatio] = []
    unanchored: dict[str, int] = defaultdict(int)
    for key in sorted(singles, key=repr):
        per_model = singles[key]
        workload, mode, precision, metric, framework, series, batch = key
        anchor = reference if reference in per_model else next((a for a in anchors if a in per_model), None)
        if anchor is None:
            if len(per_model) > 1:
                unanchored[f"{framework}{', ' + series if series else ''}"] += 1
            continue
        anchor_figs = per_model[anchor]
        anchor_value = statistics.median(_per_gpu_throughput(f) for f in anchor_figs)
        for model in sorted(per_model):
            model_figs = per_model[model]
            value = statistics.median(_per_gpu_throughput(f) for f in model_figs)
            ratios.append(
                HarnessRatio(
                    harness=harness, model=model, anchor=anchor, workload=workload, mode=mode,
                    precision=precision, metric=metric, framework=framework, series=series,
                    batch_size=batch if isinstance(batch, int) else None,
                    batch_assumed=any(f.batch_basis == "default" for f in (*model_figs, *anchor_figs)),
                    ratio=value / anchor_value, runs=len(model_figs), anchor_runs=len(anchor_figs),
                )
            )
    notes = [
        f"{count} comparison group(s) ({where}) have several models but no anchor card: no ratios there"
        for where, count in sorted(unanchored.items())
    ]
    anchored = {r.anchor for r in ratios}
    if anchored - {reference}:
        notes.append(
            f"no {reference} in some groups: ratios there are against {', '.join(sorted(anchored - {reference}))}"
        )
    return HarnessRelative(
        harness=harness, reference=reference, ratios=ratios, scaling=_scaling(harness, singles, multis), notes=notes
    )


def _scaling(
    harness: str, singles: dict[tuple, dict[str, list[HarnessFigure]]], multis: list[HarnessFigure]
) -> list[ScalingFigure]:
    cells: dict[tuple[str, str, int], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for fig in multis:
        if fig.mode != "train" or fig.precision not in ("fp16", "fp32"):
            continue
        key = _group_key(fig)
        base = singles.get(key, {}).get(fig.model, [])  # type: ignore[arg-type]
        same_host = [f for f in base if fig.baseline_run is not None and f.run == fig.baseline_run]
        base = same_host or base
        if not base:
            continue
        one = statistics.median(_per_gpu_throughput(f) for f in base)
        efficiency = _per_gpu_throughput(fig) / one
        if 0 < efficiency <= MAX_PLAUSIBLE_EFFICIENCY:
            workload = fig.workload if fig.series is None else f"{fig.workload} ({fig.series})"
            cells[(fig.model, fig.precision, fig.gpu_count)][workload].append(efficiency)  # type: ignore[index]
    out = []
    for (model, precision, n), per_workload in sorted(cells.items()):
        medians = [statistics.median(v) for v in per_workload.values()]
        out.append(
            ScalingFigure(model=model, precision=precision, source=harness, num_gpu=n,  # type: ignore[arg-type]
                          efficiency=round(_geomean(medians), 4), workloads=len(medians))
        )
    return out
