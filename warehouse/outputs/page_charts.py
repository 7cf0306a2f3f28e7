"""The buyer's page's charts, each drawn once: an SVG with a viewBox, which the browser scales to a
desktop's column or a phone's width alike (the text scales with it, so the sizes below are chosen
for a phone). Every mark carries the data it shows (``data-model``, ``data-price``...) so that the
page's script marks the answers and dims what the inputs leave out; no chart needs hover.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from html import escape
from typing import Any

from gpuvalue.warehouse.outputs.report_svg import log_ticks, nice_ticks, short_name

FRONTIER_W, FRONTIER_H = 360, 300
HISTORY_W, HISTORY_H = 360, 170
PAD_L, PAD_R, PAD_T, PAD_B = 44, 14, 14, 38
# A line joins two prices of a card only when they are this close: a gap is shown as a gap.
CONTINUITY_DAYS = 45


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def usd_short(value: float) -> str:
    return f"${value / 1000:g}k" if value >= 1000 else f"${value:,.0f}"


def value_frontier(points: list[tuple[float, float]]) -> list[int]:
    """Indexes of the points no other point beats on both price (lower) and speed (higher), cheapest first."""
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    best, out = -math.inf, []
    for i in order:
        if points[i][1] > best:
            out.append(i)
            best = points[i][1]
    return out


def frontier_chart(rows: list[dict[str, Any]], reference: str) -> str:
    """Price (log scale) against relative speed, one dot per card; the value frontier of the recently
    priced cards as a line; older prices hollow and grey. Each dot carries its card's model, price and
    memory, and a hidden label the script shows for the answers."""
    rows = [r for r in rows if r.get("price_usd") and r.get("relative_perf")]
    if not rows:
        return ""
    prices = [r["price_usd"] for r in rows]
    speeds = [r["relative_perf"] for r in rows]
    lo, hi = math.log10(min(prices) * 0.85), math.log10(max(prices) * 1.15)
    top = max(speeds) * 1.1
    inner_w, inner_h = FRONTIER_W - PAD_L - PAD_R, FRONTIER_H - PAD_T - PAD_B

    def px(price: float) -> float:
        return PAD_L + (math.log10(price) - lo) / (hi - lo) * inner_w

    def py(speed: float) -> float:
        return PAD_T + inner_h - speed / top * inner_h

    parts = [f'<svg class="chart" id="frontier" viewBox="0 0 {FRONTIER_W} {FRONTIER_H}" role="img" '
             f'aria-labelledby="frontier-title" data-points="{len(rows)}">',
             f'<title id="frontier-title">Price against training speed (relative to {escape(reference)})</title>']
    for tick in log_ticks(10 ** lo, 10 ** hi):
        x = px(tick)
        parts.append(f'<line class="grid" x1="{_n(x)}" y1="{PAD_T}" x2="{_n(x)}" y2="{PAD_T + inner_h}"/>'
                     f'<text class="tick" x="{_n(x)}" y="{PAD_T + inner_h + 14}" text-anchor="middle">{usd_short(tick)}</text>')
    for tick in nice_ticks(0, top, 5):
        y = py(tick)
        parts.append(f'<line class="grid" x1="{PAD_L}" y1="{_n(y)}" x2="{PAD_L + inner_w}" y2="{_n(y)}"/>'
                     f'<text class="tick" x="{PAD_L - 5}" y="{_n(y + 4)}" text-anchor="end">{tick:g}x</text>')
    parts.append(f'<text class="axis" x="{PAD_L + inner_w / 2:.0f}" y="{FRONTIER_H - 6}" text-anchor="middle">'
                 "price (log scale)</text>"
                 f'<text class="axis" transform="translate(11 {PAD_T + inner_h / 2:.0f}) rotate(-90)" '
                 f'text-anchor="middle">speed vs {escape(short_name(reference))}</text>')
    recent = [i for i, r in enumerate(rows) if r.get("price_tier") != "older"]
    edge = [recent[i] for i in value_frontier([(prices[j], speeds[j]) for j in recent])]
    if len(edge) > 1:
        path = " ".join(f"{_n(px(prices[i]))},{_n(py(speeds[i]))}" for i in edge)
        parts.append(f'<polyline class="frontier" points="{path}"/>')
    for i, r in enumerate(rows):
        x, y = px(prices[i]), py(speeds[i])
        older = r.get("price_tier") == "older" or r.get("stale")
        cls = "mark" + (" older" if r.get("price_tier") == "older" else "") + (" stale" if r.get("stale") else "") \
            + (" edge" if i in edge else "")
        memory = r.get("memory_gb")
        parts.append(
            f'<g class="{cls}" data-model="{escape(r["model"])}" data-price="{prices[i]:.2f}" '
            f'data-memory="{memory if memory is not None else ""}" data-vendor="{escape(str(r.get("vendor") or ""))}">'
            f'<circle cx="{_n(x)}" cy="{_n(y)}" r="{4.5 if not older else 4}"/>'
            f'<text class="pick-label" x="{_n(min(x + 7, FRONTIER_W - 4))}" y="{_n(max(y - 7, 12))}" '
            f'text-anchor="{"end" if x > FRONTIER_W * 0.7 else "start"}">{escape(short_name(r["model"]))}</text></g>')
    parts.append("</svg>")
    return "".join(parts)


def date_ticks(first: date, last: date) -> list[date]:
    """Ticks on the first of months between the card's own first and last dates (never past them),
    about four; the first and last dates are labelled by the chart itself."""
    span = (last - first).days
    if span < 40:
        return []
    step = max(1, round(span / 30.4 / 4))
    ticks: list[date] = []
    month = date(first.year, first.month, 1)
    while True:
        month = date(month.year + (month.month + step - 1) // 12, (month.month + step - 1) % 12 + 1, 1)
        if month >= last:
            return ticks
        ticks.append(month)


def history_chart(model: str, points: list[dict[str, Any]]) -> str:
    """One card's prices on their own dates: a dot per price (its kind's shape), a line only between
    prices at most CONTINUITY_DAYS apart, the axis from the card's first date to its last. A single
    price is a dot in the middle with its date under it, not a line."""
    points = sorted((p for p in points if p.get("price_usd")), key=lambda p: p["as_of"])
    if not points:
        return ""
    first, last = points[0]["as_of"], points[-1]["as_of"]
    days = max((last - first).days, 1)
    prices = [p["price_usd"] for p in points]
    low, high = min(prices), max(prices)
    ticks = nice_ticks(low * 0.9 if low != high else low * 0.8, high * 1.1 if low != high else high * 1.2, 4)
    y_lo, y_hi = ticks[0], ticks[-1]
    inner_w, inner_h = HISTORY_W - PAD_L - PAD_R, HISTORY_H - PAD_T - PAD_B

    def px(day: date) -> float:
        if first == last:
            return PAD_L + inner_w / 2
        return PAD_L + (day - first).days / days * inner_w

    def py(price: float) -> float:
        return PAD_T + inner_h - (price - y_lo) / ((y_hi - y_lo) or 1) * inner_h

    parts = [f'<svg class="chart history" viewBox="0 0 {HISTORY_W} {HISTORY_H}" role="img" data-model="{escape(model)}" '
             f'data-points="{len(points)}"><title>Price history of {escape(model)}: {len(points)} price(s), '
             f"{first.isoformat()} to {last.isoformat()}</title>"]
    for tick in ticks:
        y = py(tick)
        parts.append(f'<line class="grid" x1="{PAD_L}" y1="{_n(y)}" x2="{PAD_L + inner_w}" y2="{_n(y)}"/>'
                     f'<text class="tick" x="{PAD_L - 5}" y="{_n(y + 4)}" text-anchor="end">{usd_short(tick)}</text>')
    for day in date_ticks(first, last):
        x = px(day)
        parts.append(f'<line class="grid" x1="{_n(x)}" y1="{PAD_T}" x2="{_n(x)}" y2="{PAD_T + inner_h}"/>')
    labels = [(first, "start" if first != last else "middle")] + ([(last, "end")] if last != first else [])
    for day, anchor in labels:
        parts.append(f'<text class="tick" x="{_n(px(day))}" y="{PAD_T + inner_h + 14}" text-anchor="{anchor}">'
                     f"{day.isoformat()}</text>")
    segment: list[str] = []
    for i, p in enumerate(points):
        if i and (p["as_of"] - points[i - 1]["as_of"]) > timedelta(days=CONTINUITY_DAYS):
            if len(segment) > 1:
                parts.append(f'<polyline class="line" points="{" ".join(segment)}"/>')
            segment = []
        segment.append(f"{_n(px(p['as_of']))},{_n(py(p['price_usd']))}")
    if len(segment) > 1:
        parts.append(f'<polyline class="line" points="{" ".join(segment)}"/>')
    for p in points:
        x, y, kind = px(p["as_of"]), py(p["price_usd"]), p.get("price_kind") or "price"
        shape = (f'<rect x="{_n(x - 3.5)}" y="{_n(y - 3.5)}" width="7" height="7"/>' if kind == "asking"
                 else f'<circle cx="{_n(x)}" cy="{_n(y)}" r="3.5"/>')
        parts.append(f'<g class="mark {escape(kind)}"><title>{escape(kind)} ${p["price_usd"]:,.0f} on '
                     f'{p["as_of"].isoformat()}</title>{shape}</g>')
    if len(points) == 1:
        p = points[0]
        parts.append(f'<text class="value" x="{_n(px(first))}" y="{_n(py(p["price_usd"]) - 9)}" text-anchor="middle">'
                     f'${p["price_usd"]:,.0f} ({escape(p.get("price_kind") or "")})</text>')
    parts.append("</svg>")
    return "".join(parts)
