"""How fast N identical cards train together: one rule for every card.

Data-parallel training on N cards runs at ``N x one card x efficiency``. The efficiency is the
measured one where a benchmark measured that card at that count (the median over the benchmark
sources, of the ranking's precision: ``perf_scaling``; not the single-process DataParallel runs of
``DATA_PARALLEL_SOURCES``), and otherwise the median measured efficiency of its class of card at 2 to
4 cards (``CLASSES``: desktop cards on PCIe, workstation cards, datacenter cards with NVLink or server
PCIe), whose quartiles widen the setup's interval. The shipped benchmarks give desktop cards a median
of 0.80 (they have no NVLink and often share PCIe lanes), workstation and datacenter cards 0.93 to
0.95. Where a class has no measurement, ``GPUVALUE_MULTI_GPU_EFFICIENCY`` (0.90) stands in, said so.
Measured scaling of other counts is never stretched to this one: a 3090 measured at 2 and 8 cards is
not thereby known at 4; where several sources measured a card and count, their lowest and highest widen
the interval. Each card still holds only its own memory.

Pure: numbers in, numbers and words out.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_MULTI_GPU_EFFICIENCY = 0.90
# Sources whose multi-GPU runs are single-process DataParallel (docs/harnesses.md: lamikr's runs, at
# batch 12 a GPU, 0.50-0.68 at two GPUs): a way of training multi-GPU work no longer uses, slower than
# the one-process-per-GPU data parallelism (DDP) the other sources measure, so they do not stand for
# what a buyer's cards would do.
DATA_PARALLEL_SOURCES = ("pytorch-gpu-benchmark",)
DEFAULT_MAX_GPUS = 4  # what a workstation holds: four double-width cards on one board
CLASSES = {"desktop": "desktop cards on PCIe", "workstation": "workstation cards",
           "datacenter": "datacenter cards (NVLink or server PCIe)"}
CLASS_COUNTS = (2, 3, 4)  # the counts a buyer's setup has: 8-card servers scale otherwise


@dataclass(frozen=True)
class ClassScaling:
    """The measured per-card efficiencies of one class of card at 2 to 4 cards: median and quartiles."""

    median: float
    low: float
    high: float
    n: int


def scaling_class(segment: object) -> str:
    """The class whose median stands for an unmeasured card: its catalog segment, desktop otherwise."""
    return segment if isinstance(segment, str) and segment in CLASSES else "desktop"


def class_scaling(measured: Mapping[str, Mapping[int, float]],
                  segments: Mapping[str, object]) -> dict[str, ClassScaling]:
    """Each class's median and quartiles of the measured efficiencies (one per card and count, 2 to 4)."""
    values: dict[str, list[float]] = {}
    for model, counts in measured.items():
        for n, eff in counts.items():
            if int(n) in CLASS_COUNTS:
                values.setdefault(scaling_class(segments.get(model)), []).append(float(eff))
    out = {}
    for name, effs in values.items():
        effs.sort()
        q = statistics.quantiles(effs, n=4, method="inclusive") if len(effs) > 1 else [effs[0]] * 3
        out[name] = ClassScaling(median=statistics.median(effs), low=q[0], high=q[2], n=len(effs))
    return out


@dataclass(frozen=True)
class ScalingFacts:
    """Measured per-card efficiency (model -> GPU count -> efficiency) and the assumption for the rest."""

    measured: Mapping[str, Mapping[int, float]] = field(default_factory=dict)
    assumed_efficiency: float = DEFAULT_MULTI_GPU_EFFICIENCY
    precision: str | None = None  # the precision the measured figures are of
    classes: Mapping[str, ClassScaling] = field(default_factory=dict)  # class_scaling of the measured
    spread: Mapping[str, Mapping[int, tuple[float, float]]] = field(default_factory=dict)  # the sources' lowest, highest

    def __post_init__(self) -> None:
        if not 0 < self.assumed_efficiency <= 1:
            raise ValueError(f"the assumed multi-GPU efficiency must be above 0 and at most 1, not {self.assumed_efficiency!r}")


@dataclass(frozen=True)
class Scaling:
    efficiency: float  # per card, 1.0 for one card
    measured: bool
    words: str | None  # None for one card
    low: float | None = None  # the interval of the efficiency: the class's quartiles where assumed
    high: float | None = None


def setup_scaling(model: str, gpus: int, facts: ScalingFacts, segment: object = None) -> Scaling:
    """The per-card efficiency of ``gpus`` cards of ``model`` (of catalog ``segment``), and where it comes from."""
    if gpus < 1:
        raise ValueError("gpus must be at least 1")
    if gpus == 1:
        return Scaling(1.0, True, None, 1.0, 1.0)
    counts = facts.measured.get(model) or {}
    value = counts.get(gpus, counts.get(str(gpus)))  # type: ignore[call-overload]
    if value is not None:
        precision = f", {facts.precision}" if facts.precision else ""
        low, high = (facts.spread.get(model) or {}).get(gpus, (float(value), float(value)))
        spread = f" ({low:.0%}-{high:.0%} over the sources)" if high - low >= 0.005 else ""
        return Scaling(float(value), True, f"measured: benchmarks ran {gpus} of these cards{precision}{spread}",
                       min(low, float(value)), max(high, float(value)))
    name = scaling_class(segment)
    known = facts.classes.get(name)
    if known is not None:
        return Scaling(known.median, False,
                       f"no benchmark ran {gpus} of these cards: the median of {known.n} measured setups of "
                       f"{CLASSES[name]} (quartiles {known.low:.0%}-{known.high:.0%} widen the interval)",
                       known.low, known.high)
    return Scaling(facts.assumed_efficiency, False,
                   f"assumed: no benchmark ran {gpus} of these cards nor of their class (GPUVALUE_MULTI_GPU_EFFICIENCY)",
                   facts.assumed_efficiency, facts.assumed_efficiency)


def assumption_words(facts: ScalingFacts) -> str:
    """The one scaling rule, as the answers state it."""
    classes = ", ".join(f"{CLASSES[name]} {c.median:.0%}" for name, c in sorted(facts.classes.items()))
    rest = (f"else the median of the card's class ({classes}; its quartiles widen the interval), "
            if classes else "")
    return (f"N cards train at N x one card x the per-card scaling a benchmark measured for that card and count, "
            f"{rest}else {facts.assumed_efficiency:.0%} (data parallel; GPUVALUE_MULTI_GPU_EFFICIENCY); "
            "N cards slower than fewer of the same card are not offered")

