"""How a performance figure's origin is shown to people: the stored source, and a mark when
the estimate behind it is low confidence. Every output that prints a speed uses this, so a
low-confidence estimate never reads like a measurement or a well-backed estimate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# The phrase estimate_record writes into an estimate's method when it widens its uncertainty.
LOW_CONFIDENCE = "low confidence"


def is_low_confidence(row: Mapping[str, Any]) -> bool:
    return LOW_CONFIDENCE in str(row.get("perf_method") or "")


def perf_source_label(row: Mapping[str, Any]) -> str:
    """``estimate``, ``estimate, low confidence`` or the measured source as stored."""
    source = str(row.get("perf_source") or "")
    return f"{source}, {LOW_CONFIDENCE}" if is_low_confidence(row) else source
