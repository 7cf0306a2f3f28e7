"""Several benchmark harnesses' figures of a card, combined into the one figure the ranking uses.

The method was fixed before any of its results were computed (docs/performance.md, "Combining
benchmark harnesses"). In short:

- A harness's ratios (``harness_relative``) against one anchor at one precision form a *unit*. A
  unit anchored on the reference card is *direct*: a card's figure there is the geometric mean of
  its workload ratios (broken cells dropped as Lambda's are). A unit anchored elsewhere is scaled
  through the cards it shares with direct sources (geomean of direct figure / unit figure over
  them); only direct figures link, so no chain runs through another chain.
- A harness that declares a bridge (``HarnessInput.bridge``: MLPerf, whose newer rounds have no H100)
  links each unit through its anchor alone: through its own figure of the anchor from the units
  before (in anchor order) where it has one, else through the anchor's direct figure (those resting
  on more than one workload where it has any), else through the cards it shares as above.
- Lambda (any figure passed as ``others``) counts as one direct source.
- A card with several sources gets a ``combined`` figure: the geometric mean of its direct sources'
  figures, each source weighing one (only chained ones where it has no direct figure). It is the
  figure the ranking uses (``perf_best`` prefers source ``combined`` among measured figures).
- The usual spread: per precision, the median |log(a / b)| over every pair of direct figures of
  every card but the reference. A card whose combined sources are more than twice that apart is
  flagged in its method text.
- No ratio across batch sizes: a card whose runs share a comparison group with no other card gets
  no figure, and ``no_figure`` says why.

Pure logic, no I/O: the warehouse stores what this returns (``gpuvalue.warehouse.harness``).
"""

from __future__ import annotations

import math
import statistics
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

from pydantic import BaseModel, ConfigDict

from gpuvalue.models.harness import SYSTEM_METRICS, HarnessFigure
from gpuvalue.models.perf.harness_relative import HarnessRatio, harness_relative
from gpuvalue.models.perf.label import ON_ROCM  # the phrase outputs mark ROCm figures by
from gpuvalue.models.perf.measured import (
    DEFAULT_REFERENCE,
    MAX_CELL_DEVIATION,
    ScalingFigure,
    WorkloadRatio,
)
from gpuvalue.models.records import PerfFigure

COMBINED = "combined"
# A card's combined sources further apart than this many times the usual spread (in log terms)
# are flagged as disagreeing.
DISAGREE_FACTOR = 2.0
PRECISIONS = ("fp16", "fp32")


@dataclass(frozen=True)
class HarnessInput:
    """One harness's figures and how its ratios anchor (``anchors``: its cards to use where a
    comparison group has no reference card), with the date its data is as of."""

    name: str
    figures: Sequence[HarnessFigure]
    anchors: tuple[str, ...] = ()
    as_of: date | None = None
    bridge: bool = False  # later anchors link through its own figure of them first (``Harness.bridge``)
    third_check: bool = True  # its cards are in the third held-out check (``Harness.third_check``)


@dataclass(frozen=True)
class SourceFigure:
    """One source's figure of one card at one precision, before combining."""

    model: str
    precision: str
    source: str
    value: float
    ratios: Mapping[str, float]  # workload label -> ratio to the reference (chain scale included)
    direct: bool
    anchor: str
    links: tuple[str, ...] = ()  # the shared cards a chained figure was scaled through
    scale: float = 1.0
    rocm: bool = False
    batch_assumed: bool = False
    method: str = ""
    as_of: date | None = None
    n: int = 0  # workloads behind the figure when its ratios are not given

    @property
    def workloads(self) -> int:
        return len(self.ratios) or self.n


class CombinedPerf(BaseModel):
    """Every harness's figures as ``perf`` rows (source = harness), the ``combined`` rows, the
    per-workload ratios behind both, the harnesses' scaling rows, the usual spread per precision
    (log, None without pairs) and, per harness, the cards its runs gave no figure and why."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    figures: list[PerfFigure]
    combined: list[PerfFigure]
    per_workload: list[WorkloadRatio]
    scaling: list[ScalingFigure]
    spread: dict[str, float | None]
    no_figure: list[tuple[str, str, str, str]] = []  # (model, precision, harness, why)
    sources: dict[tuple[str, str], list[SourceFigure]] = {}  # (model, precision) -> every source's figure

    def ranking_figures(self) -> dict[tuple[str, str], PerfFigure]:
        """Per card and precision, the figure the ranking uses among these: the combined one where
        there is one, else the card's single harness figure (as ``perf_best`` picks)."""
        out: dict[tuple[str, str], PerfFigure] = {}
        for fig in self.figures:
            out.setdefault((fig.model, fig.precision), fig)
        for fig in self.combined:
            out[(fig.model, fig.precision)] = fig
        return out


def _geomean(values: Sequence[float]) -> float:
    return math.exp(statistics.fmean(math.log(v) for v in values))


def drop_broken_cells(ratios: Mapping[str, float], factor: float) -> dict[str, float]:
    """A card's workload ratios without those more than ``factor`` times away from their median
    (with at least three ratios; fewer cannot say which one is off)."""
    if len(ratios) < 3:
        return dict(ratios)
    middle = statistics.median(ratios.values())
    return {w: r for w, r in ratios.items() if 1 / factor <= r / middle <= factor}


def _labelled(ratios: Sequence[HarnessRatio]) -> list[tuple[HarnessRatio, str]]:
    """Each ratio with its workload label, unique per model, precision and anchor (the batch is
    added where one workload was compared at several batches), as ``workload_ratios`` labels them."""
    slots: dict[tuple[str, str, str, str], int] = defaultdict(int)
    for r in ratios:
        slots[(r.model, r.precision, r.anchor, r.workload_label)] += 1
    out = []
    for r in ratios:
        label = r.workload_label
        if slots[(r.model, r.precision, r.anchor, label)] > 1:
            label = f"{label} bs{r.batch_size}"
        out.append((r, label))
    return out


def _is_rocm(fig: HarnessFigure, vendors: Mapping[str, str] | None) -> bool:
    if fig.rocm is not None:
        return True
    if fig.model is None:
        return False
    if vendors is not None and fig.model in vendors:
        return str(vendors[fig.model]).upper() == "AMD"
    return fig.model.startswith(("Radeon", "AMD "))


@dataclass
class _Unit:
    harness: str
    anchor: str
    precision: str
    cards: dict[str, dict[str, float]] = field(default_factory=dict)  # model -> label -> ratio
    assumed: set[str] = field(default_factory=set)  # models with a batch the harness assumed


def _units(h: HarnessInput, reference: str, cell_factor: float) -> tuple[list[_Unit], list[HarnessRatio],
                                                                        list[ScalingFigure]]:
    rel = harness_relative(h.figures, reference=reference, anchors=h.anchors)
    chosen = [r for r in rel.ratios if r.mode == "train" and r.precision in PRECISIONS]
    units: dict[tuple[str, str], _Unit] = {}
    for r, label in _labelled(chosen):
        unit = units.setdefault((r.anchor, r.precision), _Unit(h.name, r.anchor, r.precision))
        unit.cards.setdefault(r.model, {})[label] = r.ratio
        if r.batch_assumed:
            unit.assumed.add(r.model)
    for unit in units.values():
        unit.cards = {m: kept for m, ratios in unit.cards.items() if (kept := drop_broken_cells(ratios, cell_factor))}
    ordered = sorted(units.values(), key=lambda u: (u.precision, u.anchor != reference, u.anchor))
    return ordered, chosen, rel.scaling


def _harness_method(fig: SourceFigure, reference: str, series: Sequence[str]) -> str:
    what = f"{fig.workloads} workload{'s' if fig.workloads != 1 else ''}"
    if fig.direct:
        how = f"vs {reference}"
    else:
        how = (f"vs {fig.anchor}, chained to {reference} through {', '.join(fig.links)} "
               f"(scale {fig.scale:.3f})")
    extra = [ON_ROCM] if fig.rocm else []
    if fig.batch_assumed:
        extra.append("batch assumed (the harness's documented default) for some runs")
    if series:
        extra.append(f"series {', '.join(series)}")
    tail = "; " + "; ".join(extra) if extra else ""
    return f"measured: geomean of {what} {how} ({fig.source}){tail}"


def combine_measured(
    harnesses: Sequence[HarnessInput],
    others: Sequence[PerfFigure] = (),
    other_ratios: Sequence[WorkloadRatio] = (),
    *,
    reference: str = DEFAULT_REFERENCE,
    cell_factor: float = MAX_CELL_DEVIATION,
    vendors: Mapping[str, str] | None = None,
) -> CombinedPerf:
    """Every harness's figures relative to ``reference``, and each card's combined figure.

    ``others`` are the other measured sources' figures (Lambda's headline figures: one per card,
    precision and source), direct by definition; ``other_ratios`` their per-workload ratios, kept
    under the combined rows. ``vendors`` (model -> vendor) tells ROCm runs apart where a figure
    does not name its ROCm version."""
    sources: dict[tuple[str, str], list[SourceFigure]] = defaultdict(list)
    for fig in others:
        if fig.precision not in PRECISIONS:
            continue
        ratios = {r.workload: r.ratio for r in other_ratios
                  if r.model == fig.model and r.precision == fig.precision and r.source == fig.source}
        sources[(fig.model, fig.precision)].append(SourceFigure(
            model=fig.model, precision=fig.precision, source=fig.source, value=fig.relative_perf, ratios=ratios,
            direct=True, anchor=reference, method=fig.method, as_of=fig.as_of, n=fig.workloads))

    all_units: list[_Unit] = []
    rocm: dict[tuple[str, str], bool] = {}
    series: dict[tuple[str, str, str, str], set[str]] = defaultdict(set)  # (harness, anchor, model, precision)
    no_figure: list[tuple[str, str, str, str]] = []
    compared: dict[tuple[str, str, str], bool] = {}
    scaling: list[ScalingFigure] = []
    as_of = {h.name: h.as_of for h in harnesses}
    for h in harnesses:
        units, chosen, unit_scaling = _units(h, reference, cell_factor)
        all_units.extend(units)
        for r in chosen:
            compared[(h.name, r.model, r.precision)] = True
            if r.series:
                series[(h.name, r.anchor, r.model, r.precision)].add(r.series)
        for hfig in h.figures:
            if hfig.model is not None and hfig.excluded is None:
                key = (h.name, hfig.model)
                rocm[key] = rocm.get(key, False) or _is_rocm(hfig, vendors)
        scaling.extend(unit_scaling)
        # Cards whose training runs at a precision give no ratio at all, and why.
        usable: dict[tuple[str, str], set[int | None]] = defaultdict(set)
        for run in h.figures:
            if (run.model is not None and run.excluded is None and (run.gpu_count == 1 or run.metric in SYSTEM_METRICS)
                    and run.mode == "train" and run.precision in PRECISIONS):
                usable[(run.model, run.precision)].add(run.batch_size)
        for (model, precision), batches in sorted(usable.items(), key=repr):
            if not compared.get((h.name, model, precision)):
                shown = ", ".join("unknown" if b is None else str(b) for b in sorted(batches, key=lambda b: b or 0))
                no_figure.append((model, precision, h.name,
                                  f"no other card ran the same workloads at its batch ({shown}) in this harness: "
                                  "no ratio, and no ratio across batch sizes"))

    def add(unit: _Unit, model: str, ratios: dict[str, float], direct: bool, links=(), scale=1.0) -> None:
        key = (unit.harness, unit.anchor, model, unit.precision)
        sources[(model, unit.precision)].append(SourceFigure(
            model=model, precision=unit.precision, source=unit.harness, value=_geomean(list(ratios.values())),
            ratios=ratios, direct=direct, anchor=unit.anchor, links=tuple(links), scale=scale,
            rocm=rocm.get((unit.harness, model), False), batch_assumed=model in unit.assumed,
            as_of=as_of.get(unit.harness)))
        fig = sources[(model, unit.precision)][-1]
        sources[(model, unit.precision)][-1] = SourceFigure(**{
            **fig.__dict__, "method": _harness_method(fig, reference, sorted(series.get(key, ())))})

    for unit in all_units:
        if unit.anchor == reference:
            for model, ratios in sorted(unit.cards.items()):
                add(unit, model, ratios, True)

    def direct_figure(model: str, precision: str) -> float | None:
        values = [s.value for s in sources.get((model, precision), []) if s.direct]
        return _geomean(values) if values else None

    known = {key: v for key in list(sources) if (v := direct_figure(*key)) is not None}
    bridging = {h.name for h in harnesses if h.bridge}
    order = {(h.name, a): i for h in harnesses for i, a in enumerate(h.anchors)}
    chained = [u for u in all_units if u.anchor != reference]
    chained.sort(key=lambda u: order.get((u.harness, u.anchor), len(order)) if u.harness in bridging else -1)
    unresolved = []
    for unit in chained:
        own = [s for s in sources.get((unit.anchor, unit.precision), [])
               if unit.harness in bridging and s.source == unit.harness and not s.direct]
        if own and unit.anchor in unit.cards:
            # The harness's own bridge: its figure of this unit's anchor from the comparisons before.
            scale = _geomean([s.value for s in own]) / _geomean(list(unit.cards[unit.anchor].values()))
            for model, ratios in sorted(unit.cards.items()):
                if model != unit.anchor:
                    add(unit, model, {w: r * scale for w, r in ratios.items()}, False,
                        (f"its own {unit.anchor}",), scale)
            continue
        local = {m: _geomean(list(r.values())) for m, r in unit.cards.items()}
        links = sorted(m for m in unit.cards if (m, unit.precision) in known)
        if unit.harness in bridging and unit.anchor in links:
            # Every ratio of the unit is against its anchor: another link card would carry how that card
            # differs between this harness's workloads and the other sources' into every figure.
            links = [unit.anchor]
        if not links:
            unresolved.append(unit)
            continue
        scale = _geomean([_link_value(sources, m, unit.precision, unit.harness in bridging) / local[m] for m in links])
        for model, ratios in sorted(unit.cards.items()):
            if unit.harness in bridging and links == [model]:  # its figure would repeat the one it came from
                continue
            add(unit, model, {w: r * scale for w, r in ratios.items()}, False, links, scale)
    for unit in unresolved:
        for model in sorted(unit.cards):
            no_figure.append((model, unit.precision, unit.harness,
                              f"its ratios are against {unit.anchor}, and none of this harness's cards at "
                              f"{unit.precision} has a figure against {reference} to chain through"))

    # One figure per card and harness: a direct unit's where there is one, else its chained ones'.
    merged: dict[tuple[str, str], list[SourceFigure]] = {}
    for key, figs in sources.items():
        by_source: dict[str, list[SourceFigure]] = defaultdict(list)
        for f in figs:
            by_source[f.source].append(f)
        out = []
        for source, group in by_source.items():
            direct = [f for f in group if f.direct]
            pick = direct or group
            if len(pick) == 1:
                out.append(pick[0])
                continue
            ratios = {w: r for f in pick for w, r in f.ratios.items()}
            first = pick[0]
            joined = SourceFigure(**{**first.__dict__, "value": _geomean(list(ratios.values())), "ratios": ratios,
                                     "links": tuple(sorted({m for f in pick for m in f.links}))})
            names = sorted({x for f in pick for x in series.get((source, f.anchor, key[0], key[1]), ())})
            out.append(SourceFigure(**{**joined.__dict__, "method": _harness_method(joined, reference, names)}))
        merged[key] = out

    spread = usual_spread(merged, reference)
    harness_names = {h.name for h in harnesses}
    figures: list[PerfFigure] = []
    combined: list[PerfFigure] = []
    per_workload: list[WorkloadRatio] = []
    for (model, precision), figs in sorted(merged.items()):
        for f in figs:
            if f.source not in harness_names:
                continue
            figures.append(PerfFigure(model=model, precision=precision, relative_perf=round(f.value, 4),  # type: ignore[arg-type]
                                      source=f.source, method=f.method, reference=reference, measured=True,
                                      workloads=f.workloads, as_of=f.as_of))
            per_workload.extend(WorkloadRatio(model=model, precision=precision, source=f.source, workload=w,  # type: ignore[arg-type]
                                              ratio=r) for w, r in sorted(f.ratios.items()))
        made = _combined(model, precision, figs, spread.get(precision), reference)
        if made is not None:
            combined.append(made)
            parts = [f for f in figs if f.direct] or figs
            per_workload.extend(WorkloadRatio(model=model, precision=precision, source=COMBINED,  # type: ignore[arg-type]
                                              workload=f"{f.source}/{w}", ratio=r)
                                for f in parts for w, r in sorted(f.ratios.items()))
    return CombinedPerf(figures=figures, combined=combined, per_workload=per_workload, scaling=scaling,
                        spread=spread, no_figure=sorted(set(no_figure)), sources=dict(merged))


def _link_value(sources: Mapping[tuple[str, str], Sequence[SourceFigure]], model: str, precision: str,
                sturdy: bool) -> float:
    """A link card's direct figure a chain scales through: the geometric mean of its direct sources;
    for a harness that declares a bridge (few links, each carrying all its figures), of those resting
    on more than one workload where it has any, a one-workload figure being the weakest a card has."""
    direct = [s for s in sources.get((model, precision), []) if s.direct]
    if sturdy and any(s.workloads > 1 for s in direct):
        direct = [s for s in direct if s.workloads > 1]
    return _geomean([s.value for s in direct])


def usual_spread(sources: Mapping[tuple[str, str], Sequence[SourceFigure]], reference: str) -> dict[str, float | None]:
    """Per precision, the median |log(a / b)| over every pair of direct figures of one card (the
    reference left out: it is 1.0 in every source by definition); None without any pair."""
    out: dict[str, float | None] = {}
    for precision in PRECISIONS:
        gaps: list[float] = []
        for (model, p), figs in sources.items():
            if p != precision or model == reference:
                continue
            direct = [f.value for f in figs if f.direct]
            gaps.extend(abs(math.log(a / b)) for i, a in enumerate(direct) for b in direct[i + 1:])
        out[precision] = statistics.median(gaps) if gaps else None
    return out


def _combined(model: str, precision: str, figs: Sequence[SourceFigure], spread: float | None,
              reference: str) -> PerfFigure | None:
    """The card's figure over several sources; None with one source (its own figure is the card's)."""
    if len(figs) < 2:
        return None
    parts = [f for f in figs if f.direct] or list(figs)
    parts = sorted(parts, key=lambda f: (not f.source.startswith("lambda"), f.source))
    value = _geomean([f.value for f in parts])
    names = [f"{f.source} ({f.workloads} workload{'s' if f.workloads != 1 else ''})" for f in parts]
    if len(names) == 1:
        text = f"measured: {names[0]}, its only source against {reference} directly"
    else:
        text = f"measured: geomean of {', '.join(names[:-1])} and {names[-1]}"
    widest = max(((a, b) for i, a in enumerate(parts) for b in parts[i + 1:]),
                 key=lambda ab: abs(math.log(ab[0].value / ab[1].value)), default=None)
    gap = abs(math.log(widest[0].value / widest[1].value)) if widest else 0.0
    if widest is None:
        pass
    elif spread is None:
        text += "; no usual spread to compare with"
    elif gap > DISAGREE_FACTOR * spread:
        text += (f"; harnesses disagree: {widest[0].source} gives {widest[0].value:.3f}, {widest[1].source} "
                 f"{widest[1].value:.3f} ({math.exp(gap):.2f}x apart, more than twice the usual spread "
                 f"of {math.exp(spread):.2f}x)")
    else:
        text += f"; harnesses agree within the usual spread ({math.exp(spread):.2f}x)"
    left = [f for f in figs if f not in parts]
    if left:
        text += "; not averaged in (chained): " + ", ".join(f"{f.source} gives {f.value:.3f}" for f in left)
    if any(f.rocm for f in parts):
        text += f"; {ON_ROCM}"
    dates = [f.as_of for f in parts if f.as_of is not None]
    return PerfFigure(model=model, precision=precision, relative_perf=round(value, 4), source=COMBINED,  # type: ignore[arg-type]
                      method=text, reference=reference, measured=True,
                      workloads=sum(f.workloads for f in parts), as_of=max(dates) if dates else None)


def disagreeing(figure: PerfFigure) -> bool:
    """Whether a combined figure's sources are further apart than the usual spread allows."""
    return "harnesses disagree" in figure.method


def ranking_set(others: Sequence[PerfFigure], result: CombinedPerf) -> list[PerfFigure]:
    """One measured figure per card and precision, the one the ranking uses (as ``perf_best``
    picks among measured figures: the combined one, else the most workloads, then by source), for
    fitting and cross-validating on every measured card."""
    best: dict[tuple[str, str], PerfFigure] = {}
    for fig in [*others, *result.figures, *result.combined]:
        key = (fig.model, fig.precision)
        rank = (fig.source != COMBINED, -(fig.workloads or 0), fig.source)
        held = best.get(key)
        if held is None or rank < (held.source != COMBINED, -(held.workloads or 0), held.source):
            best[key] = fig
    return [best[k] for k in sorted(best)]
