"""Whether a speed figure may be called measured: one rule for every output that words it.

"Measured" only where benchmarks carry most of a figure's weight. A figure of one benchmark source
rests on it alone; a spec estimate on none; a weighted figure (``models/perf/weighted.py``) on each
piece by its weight, named with its share in the figure's method text. `recommend` (text and JSON),
`rank`, rent or buy, the feed, the buyer's page and the unpriced cards' words all ask this module.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpuvalue.models.perf.label import LOW_CONFIDENCE, is_low_confidence, is_rocm


MEASURED_MAJORITY = 0.5  # benchmarks carry more than this share of a figure's weight: it is "measured"
ESTIMATE_SOURCE = "estimate"
LOCAL_SOURCE = "local"
WEIGHTED_SOURCE = "weighted"
_SHARE = re.compile(r"(?P<name>[^,:]+?) (?P<value>\d+(?:\.\d+)?) \((?P<share>\d+(?:\.\d+)?)%\)")


@dataclass(frozen=True)
class SpeedEvidence:
    """What a shown speed figure rests on: the share of its weight that benchmarks carry, and which.

    A figure of one benchmark source (Lambda's, a harness's, their combination) rests on benchmarks
    alone; a spec estimate on none; a weighted figure (``models/perf/weighted.py``) on each piece by
    its weight, the pieces named with their shares in its method text."""

    benchmark_share: float  # 0 to 1
    benchmarks: tuple[str, ...]  # the benchmark sources behind it
    local: bool = False
    low_confidence: bool = False
    rocm: bool = False

    @property
    def measured(self) -> bool:
        """Benchmarks carry most of the figure's weight: the one condition for the word "measured"."""
        return self.local or self.benchmark_share > MEASURED_MAJORITY

    def label(self) -> str:
        """A few words for a table, the feed and the page: ``measured (lambda-pytorch-2024)``,
        ``measured (gpu-insights, lambda-pytorch-v1: 68% of the weight)``, ``estimate, checked against 1
        benchmark (gpu-insights)``, ``estimate``, ``estimate, low confidence``."""
        rocm = " (ROCm)" if self.rocm else ""
        if self.local:
            return "measured on this machine"
        n = len(self.benchmarks)
        names = ", ".join(self.benchmarks) if n <= 2 else f"{n} benchmarks"
        if self.measured:
            if self.benchmark_share >= 1.0 - 1e-9:
                return f"measured ({names}{rocm})"
            return f"measured ({names}{rocm}: {self.benchmark_share:.0%} of the weight)"
        low = f", {LOW_CONFIDENCE}" if self.low_confidence else ""
        if n:
            return f"estimate{low}, checked against {n} benchmark{'s' if n != 1 else ''} ({names}{rocm})"
        return f"estimate{low}"

    def short(self) -> str:
        """The label in a table's narrow cell: the benchmark's name where one carries it all,
        ``measured 68%``, ``estimate (1 bench, 32%)`` (the benchmarks' share), ``estimate``; `rank` explains
        them under its table."""
        rocm = " (ROCm)" if self.rocm else ""
        if self.local:
            return LOCAL_SOURCE
        if self.measured:
            if self.benchmark_share >= 1.0 - 1e-9 and len(self.benchmarks) == 1:
                return f"{self.benchmarks[0]}{rocm}"
            return f"measured {self.benchmark_share:.0%}{rocm}"
        if not self.benchmarks:
            return ESTIMATE_SOURCE
        # The benchmarks' share too: "estimate (1 bench)" alone reads as an estimate made from one benchmark,
        # not as a figure the benchmark carries 45% of (the RTX 4080 SUPER's, GPU-Insights 1.243 beside the
        # estimate's 1.028).
        return f"estimate ({len(self.benchmarks)} bench{rocm}, {self.benchmark_share:.0%})"

    def as_dict(self) -> dict[str, Any]:
        """The fields `recommend --json` and the page carry beside a figure."""
        return {"speed_measured": self.measured, "speed_benchmark_share": round(self.benchmark_share, 2),
                "speed_benchmarks": len(self.benchmarks), "speed_evidence": self.label()}


def weighted_shares(method: str) -> list[tuple[str, float]]:
    """The pieces of a weighted figure and their shares of its weight, from its method text (written by
    ``models/perf/weighted.py``'s ``describe``: ``name value (share%)``, before the interval)."""
    body = method.split(":", 1)[1] if ":" in method else method
    body = body.split(";", 1)[0]
    return [(m["name"].strip(), float(m["share"]) / 100.0) for m in _SHARE.finditer(body)]


def speed_evidence(row: Mapping[str, Any]) -> SpeedEvidence | None:
    """What the row's shown figure rests on (``perf_source``, ``perf_method``); None without a source."""
    source = str(row.get("perf_source") or "")
    method = str(row.get("perf_method") or "")
    if not source:
        return None
    marks = {"low_confidence": is_low_confidence(row), "rocm": is_rocm(row)}
    if source == LOCAL_SOURCE:
        return SpeedEvidence(1.0, (LOCAL_SOURCE,), local=True, **marks)
    if source == ESTIMATE_SOURCE:
        return SpeedEvidence(0.0, (), **marks)
    if source == WEIGHTED_SOURCE:
        pieces = weighted_shares(method)
        if pieces:
            benches = [(name, share) for name, share in pieces if not name.startswith(ESTIMATE_SOURCE)]
            total = sum(share for _, share in pieces) or 1.0
            return SpeedEvidence(min(1.0, sum(share for _, share in benches) / total),
                                 tuple(name for name, _ in benches), **marks)
        if "the reference card" in method:  # 1.0 by definition in every source
            return SpeedEvidence(1.0, ("the reference card, 1.0 by definition",), **marks)
        return SpeedEvidence(1.0, (WEIGHTED_SOURCE,), **marks)  # a weighted figure without stated shares
    return SpeedEvidence(1.0, (source,), **marks)


def evidence_label(row: Mapping[str, Any]) -> str:
    """``speed_evidence(row).label()``, or the stored source where none can be said."""
    found = speed_evidence(row)
    return found.label() if found is not None else str(row.get("perf_source") or "")
