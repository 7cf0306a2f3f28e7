"""The report's SVG building blocks, shared by its charts and the rent-or-buy chart."""

from __future__ import annotations

import math
from dataclasses import dataclass
from html import escape

LINE_COLOURS = ("#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9")


# Phones get their own layout of each chart, drawn this wide with 13-14 px text (report.css), so
# that it shows at about its own size on a 360-420 px screen instead of the desktop chart
# shrunk to a third, with 4 px text.
NARROW_WIDTH = 360


def short_name(model: str) -> str:
    """Chart labels drop the brand prefix; tooltips and the table keep the full name."""
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


@dataclass(frozen=True)
class Axis:
    low: float
    high: float
    start: float  # pixel of low
    end: float  # pixel of high
    log: bool = False

    def __call__(self, value: float) -> float:
        if self.log:
            a, b, v = math.log10(self.low), math.log10(self.high), math.log10(value)
        else:
            a, b, v = self.low, self.high, value
        return self.start + (v - a) / (b - a) * (self.end - self.start)


def _fmt(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _svg_open(chart_id: str, width: int, height: int, marks: int, title: str, description: str,
              narrow: bool = False) -> str:
    return (
        f'<svg id="{chart_id}" class="chart{" narrow" if narrow else ""}" data-points="{marks}" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-labelledby="{chart_id}-title {chart_id}-desc">'
        f'<title id="{chart_id}-title">{escape(title)}</title><desc id="{chart_id}-desc">{escape(description)}</desc>'
    )


def _both_layouts(wide: str, narrow: str) -> str:
    """Both layouts of a chart; report.css shows the one that suits the screen and hides the other."""
    return f'<div class="wide-only">{wide}</div><div class="narrow-only">{narrow}</div>'
