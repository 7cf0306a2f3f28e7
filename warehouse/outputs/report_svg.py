"""Axis arithmetic and labels for the buyer's page's charts (warehouse/outputs/page_charts.py)."""

from __future__ import annotations

import math


def short_name(model: str) -> str:
    """Chart labels drop the brand prefix; the answers and the table keep the full name."""
    for prefix in ("GeForce ", "Radeon "):
        if model.startswith(prefix):
            return model[len(prefix):]
    return model


def nice_step(span: float, count: int) -> float:
    raw = span / max(count, 1)
    magnitude = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high]; the domain is widened to the outer ticks."""
    if high <= low:
        high = low + 1.0
    step = nice_step(high - low, count)
    start = math.floor(low / step) * step
    ticks = []
    value = start
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        value += step
    return ticks


def log_ticks(low: float, high: float) -> list[float]:
    """1-2-5 ticks for a price axis that spans a $100 card and a $30,000 one."""
    ticks = []
    for exponent in range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1):
        for mantissa in (1, 2, 5):
            value = mantissa * 10**exponent
            if low <= value <= high:
                ticks.append(float(value))
    return ticks
