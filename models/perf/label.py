"""How a performance figure's origin is shown to people: the stored source, a mark when the
estimate behind it is low confidence, and a mark when it was measured on ROCm (AMD). Every output
that prints a speed uses this, so a low-confidence estimate never reads like a measurement or a
well-backed estimate, and an AMD figure says which software stack measured it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The phrase estimate_record writes into an estimate's method when it widens its uncertainty.
LOW_CONFIDENCE = "low confidence"
# The phrase a measured figure's method carries when it was measured on AMD hardware under ROCm
# (models/perf/combine.py); such a figure is measured, so it carries no low-confidence flag.
ON_ROCM = "on ROCm"


def is_low_confidence(row: Mapping[str, Any]) -> bool:
    return LOW_CONFIDENCE in str(row.get("perf_method") or "")


def is_rocm(row: Mapping[str, Any]) -> bool:
    return ON_ROCM in str(row.get("perf_method") or "")


def perf_source_label(row: Mapping[str, Any]) -> str:
    """``estimate``, ``estimate, low confidence``, the measured source as stored, or the measured
    source marked ``(ROCm)``."""
    source = str(row.get("perf_source") or "")
    if is_rocm(row):
        source = f"{source} (ROCm)"
    return f"{source}, {LOW_CONFIDENCE}" if is_low_confidence(row) else source
