"""How fast N identical cards train together: one rule for every card.

Data-parallel training on N cards runs at ``N x one card x efficiency``. The efficiency is the
measured one where a benchmark measured that card at that count (the median over the benchmark
sources, of the ranking's precision: ``perf_scaling``; not the single-process DataParallel runs of
``DATA_PARALLEL_SOURCES``), and otherwise one stated assumption, the
same for every card and count (``GPUVALUE_MULTI_GPU_EFFICIENCY``, default 0.90). Of the 41 measured
per-card efficiencies of 2 to 4 cards in the shipped benchmarks (one median per card and count) the
median is 0.93 at fp16 and 0.91 at fp32; the 11 of desktop cards alone, which have no NVLink and
often share PCIe lanes, 0.80 at both: 0.90 sits between them, and 0.8 is the cautious setting.
Measured scaling of other counts is never stretched to this one: a 3090 measured at 2 and 8 cards is
not thereby known at 4. Each card still holds only its own memory.

Pure: numbers in, numbers and words out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_MULTI_GPU_EFFICIENCY = 0.90
# Sources whose multi-GPU runs are single-process DataParallel (docs/harnesses.md: lamikr's runs, at
# batch 12 a GPU, 0.50-0.68 at two GPUs): a way of training multi-GPU work no longer uses, slower than
# the one-process-per-GPU data parallelism (DDP) the other sources measure, so they do not stand for
# what a buyer's cards would do.
DATA_PARALLEL_SOURCES = ("pytorch-gpu-benchmark",)
DEFAULT_MAX_GPUS = 4  # what a workstation holds: four double-width cards on one board


@dataclass(frozen=True)
class ScalingFacts:
    """Measured per-card efficiency (model -> GPU count -> efficiency) and the assumption for the rest."""

    measured: Mapping[str, Mapping[int, float]] = field(default_factory=dict)
    assumed_efficiency: float = DEFAULT_MULTI_GPU_EFFICIENCY
    precision: str | None = None  # the precision the measured figures are of

    def __post_init__(self) -> None:
        if not 0 < self.assumed_efficiency <= 1:
            raise ValueError(f"the assumed multi-GPU efficiency must be above 0 and at most 1, not {self.assumed_efficiency!r}")


@dataclass(frozen=True)
class Scaling:
    efficiency: float  # per card, 1.0 for one card
    measured: bool
    words: str | None  # None for one card


def setup_scaling(model: str, gpus: int, facts: ScalingFacts) -> Scaling:
    """The per-card efficiency of ``gpus`` cards of ``model``, and where it comes from."""
    if gpus < 1:
        raise ValueError("gpus must be at least 1")
    if gpus == 1:
        return Scaling(1.0, True, None)
    counts = facts.measured.get(model) or {}
    value = counts.get(gpus, counts.get(str(gpus)))  # type: ignore[call-overload]
    if value is not None:
        precision = f", {facts.precision}" if facts.precision else ""
        return Scaling(float(value), True, f"measured: benchmarks ran {gpus} of these cards{precision}")
    return Scaling(facts.assumed_efficiency, False,
                   f"assumed: no benchmark ran {gpus} of these cards (GPUVALUE_MULTI_GPU_EFFICIENCY)")


def assumption_words(facts: ScalingFacts) -> str:
    """The one scaling rule, as the answers state it."""
    return (f"N cards train at N x one card x the per-card scaling a benchmark measured for that card and count, "
            f"else {facts.assumed_efficiency:.0%} (data parallel; GPUVALUE_MULTI_GPU_EFFICIENCY)")

