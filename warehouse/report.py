"""The chart report: one self-contained ``index.html`` that opens offline.

Charts are SVG drawn here in Python and inlined with the CSS, so the page needs no
network, no CDN and no font service, and can be mailed or archived as one file. Every
number shown carries where it came from and how old it is, because a price without its
date or a speed without its source invites the wrong purchase.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from datetime import date, datetime, timedelta, timezone
from html import escape
from pathlib import Path
from typing import Any

import duckdb
from gpuvalue.models.buyer_view import BuyerView, hidden_summary, is_not_desktop, shown_rows
from gpuvalue.models.framework_support import card_caveat
from gpuvalue.models.perf_label import perf_source_label
from gpuvalue.models.price_age import dated_price_basis, price_date_words, ranking_day_note, split_tiers, tier_title
from gpuvalue.models.memory_class import MEMORY_CLASS_LABELS, memory_class
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.export import attribution_lines, ranking_is_replay, ranking_rows, sources_from_db
from gpuvalue.warehouse.export_files import ExportError, prepare_export_dir, write_text_atomic
from gpuvalue.warehouse.report_svg import (
    LINE_COLOURS,
    NARROW_WIDTH,
    Axis,
    _both_layouts,
    _fmt,
    _svg_open,
    log_ticks,
    nice_ticks,
    short_name,
)

ASSETS = Path(__file__).parent / "report_assets"

# Okabe-Ito: distinguishable with the common colour-vision deficiencies.
CLASS_COLOURS = {
    "<8 GB": "#CC79A7",
    "8-11 GB": "#E69F00",
    "12-16 GB": "#009E73",
    "17-24 GB": "#0072B2",
    ">24 GB": "#D55E00",
}
UNKNOWN_CLASS_COLOUR = "#7f7f7f"
LINE_DASHES = ("", "6 3", "2 3", "8 3 2 3", "", "6 3")
HISTORY_LINES = len(LINE_COLOURS)
BARS_PER_CLASS = 5
CHAR_WIDTH = 7.1  # average glyph width of 12 px semibold text, for placing labels without measuring
NARROW_CHAR_WIDTH = 7.8  # 13 px semibold


@dataclass(frozen=True)
class ReportData:
    as_of: date
    rows: list[dict[str, Any]]
    history: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    generated_at: datetime
    rental: Any = None  # gpuvalue.warehouse.rental_report.RentalReport, once the warehouse holds rental prices
    replay: bool = False  # built from recorded pages: the page says so at the top
    hidden: str | None = None  # what the view left out of the ranking, as `rank` says it under its table


# --- formatting ----------------------------------------------------------------------------


def usd(value: float) -> str:
    return f"${value:,.0f}"


def usd_tick(value: float) -> str:
    if value >= 1000:
        thousands = value / 1000
        return f"${thousands:g}k"
    return f"${value:g}"




def usable(row: dict[str, Any]) -> bool:
    return row.get("framework_supported") is not False and row.get("desktop_usable") is not False


def unusable_reason(row: dict[str, Any]) -> str | None:
    if row.get("framework_supported") is False:
        return "no current framework support"
    if is_not_desktop(row):
        return "needs a server (not a desktop card)"
    return None


def price_words(row: dict[str, Any]) -> str:
    return dated_price_basis(row) + (" (stale)" if row.get("stale") else "")


# The price each kind is, in words: a chart never plots a price without saying which.
PRICE_KIND_WORDS = {
    "sold": "median of sold listings",
    "asking": "lower quartile of asking prices",
    "index": "published index (monthly average of sold prices)",
    "launch": "launch price",
}
PRICE_KIND_MARKERS = {"sold": "dots", "asking": "squares", "index": "rings", "launch": "diamonds"}


def price_kind_words(kind: str) -> str:
    return PRICE_KIND_WORDS.get(kind, str(kind))


def _kind_mark(kind: str, cx: float, cy: float, size: float, colour: str, tip: str) -> str:
    """One observation of a price history, its shape saying its kind (see PRICE_KIND_MARKERS)."""
    common = f'class="mark" data-kind="{escape(kind)}" data-tip="{escape(tip)}"'
    inner = f"<title>{escape(tip)}</title>"
    if kind == "asking":
        side = size * 1.7
        return (f'<rect {common} x="{_fmt(cx - side / 2)}" y="{_fmt(cy - side / 2)}" width="{_fmt(side)}" '
                f'height="{_fmt(side)}" fill="{colour}">{inner}</rect>')
    if kind == "index":
        return (f'<circle {common} cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="{_fmt(size)}" fill="#fff" stroke="{colour}" '
                f'stroke-width="1.6">{inner}</circle>')
    if kind == "launch":
        d = size * 1.4
        points = f"{_fmt(cx)},{_fmt(cy - d)} {_fmt(cx + d)},{_fmt(cy)} {_fmt(cx)},{_fmt(cy + d)} {_fmt(cx - d)},{_fmt(cy)}"
        return f'<polygon {common} points="{points}" fill="{colour}">{inner}</polygon>'
    return f'<circle {common} cx="{_fmt(cx)}" cy="{_fmt(cy)}" r="{_fmt(size)}" fill="{colour}">{inner}</circle>'


def _history_tip(model: str, point: dict[str, Any]) -> str:
    n = f", n={point['price_n']}" if point.get("price_n") else ""
    return f"{model}\n{point['as_of'].isoformat()}: {usd(point['price_usd'])} ({price_kind_words(point['price_kind'])}{n})"


def _history_lines(points: list[dict[str, Any]], px, py, colour: str, dash: str, width: float) -> list[str]:
    """One line per kind of price: a sold median is never joined to an asking quartile or an index."""
    parts = []
    for kind in PRICE_KIND_WORDS:
        same = [p for p in points if p["price_kind"] == kind]
        if len(same) < 2:
            continue
        path = " ".join(f"{_fmt(px(p['as_of']))},{_fmt(py(p['price_usd']))}" for p in same)
        style = ' stroke-dasharray="2 3" opacity="0.7"' if kind == "index" else (f' stroke-dasharray="{dash}"' if dash else "")
        line_width = width * 0.6 if kind == "index" else width
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="{_fmt(line_width)}"{style} '
                     'stroke-linejoin="round"/>')
    return parts


def _date_label(day: date, first: date, last: date) -> str:
    """Month and day within a year; the year too where the axis crosses one; month and year alone
    once it spans more than half a year."""
    if (last - first).days > 183:
        return f"{day:%b} {day.year}"
    return f"{day:%b} {day.day}" + (f" {day.year}" if first.year != last.year else "")


def row_tip(row: dict[str, Any]) -> str:
    lines = [
        f"#{row['rank']} {row['model']}",
        f"{usd(row['price_usd'])} ({price_words(row)})",
        f"perf {row['relative_perf']:.2f}x {row['reference_gpu']} ({perf_source_label(row)})",
        f"{row['perf_per_dollar']:.2f} perf per $1k",
    ]
    if row.get("memory_gb") is not None:
        lines.insert(1, f"{row['memory_gb']:g} GB")
    reason = unusable_reason(row)
    if reason:
        lines.append(reason)
    return "\n".join(lines)


# --- scales and ticks (pure) ---------------------------------------------------------------------










def value_frontier(points: list[tuple[float, float]]) -> list[int]:
    """Indices of Pareto-optimal (price, perf) points: no other card is both cheaper and faster.

    Ties on price keep only the fastest; returned cheapest first.
    """
    order = sorted(range(len(points)), key=lambda i: (points[i][0], -points[i][1]))
    frontier: list[int] = []
    best = -math.inf
    for index in order:
        if points[index][1] > best:
            frontier.append(index)
            best = points[index][1]
    return frontier


def _boxes_overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def place_labels(
    anchors: list[tuple[float, float, str]],
    bounds: tuple[float, float, float, float],
    avoid: list[tuple[float, float]] = (),
    obstacles: list[tuple[float, float, float, float]] = (),
    char_width: float = CHAR_WIDTH,
) -> list[tuple[float, float, str, str] | None]:
    """Greedy label placement beside points: right, left, above, below; None when all collide.

    ``avoid`` are other points (a label may sit next to its own point only); ``obstacles``
    are boxes such as line segments that a label must not cross.
    """
    placed: list[tuple[float, float, float, float]] = [(x - 5, y - 5, x + 5, y + 5) for x, y in avoid]
    placed += list(obstacles)
    result: list[tuple[float, float, str, str] | None] = []
    for x, y, text in anchors:
        width = len(text) * char_width
        candidates = [
            (x + 8, y + 4, "start", (x + 8, y - 10, x + 8 + width, y + 4)),
            (x - 8, y + 4, "end", (x - 8 - width, y - 10, x - 8, y + 4)),
            (x, y - 10, "middle", (x - width / 2, y - 24, x + width / 2, y - 10)),
            (x, y + 19, "middle", (x - width / 2, y + 7, x + width / 2, y + 21)),
            (x + 8, y - 8, "start", (x + 8, y - 22, x + 8 + width, y - 8)),
            (x + 8, y + 16, "start", (x + 8, y + 2, x + 8 + width, y + 16)),
            (x - 8, y - 8, "end", (x - 8 - width, y - 22, x - 8, y - 8)),
            (x - 8, y + 16, "end", (x - 8 - width, y + 2, x - 8, y + 16)),
            (x, y - 26, "middle", (x - width / 2, y - 40, x + width / 2, y - 26)),
            (x, y + 35, "middle", (x - width / 2, y + 23, x + width / 2, y + 37)),
        ]
        chosen = None
        for tx, ty, anchor, box in candidates:
            inside = box[0] >= bounds[0] and box[2] <= bounds[2] and box[1] >= bounds[1] and box[3] <= bounds[3]
            own = [(px - 5, py - 5, px + 5, py + 5) for px, py in avoid if (px, py) == (x, y)]
            if inside and not any(_boxes_overlap(box, other) for other in placed if other not in own):
                chosen = (tx, ty, anchor, text)
                placed.append(box)
                break
        result.append(chosen)
    return result






# --- chart (a): performance against price, with the value frontier ---------------------------------


def frontier_candidates(rows: list[dict[str, Any]]) -> list[int]:
    """The usable cards whose prices compare with each other: the recently priced ones where any are
    (an older index price is not beaten or beating at today's prices), else every usable card."""
    usable_rows = [i for i, row in enumerate(rows) if usable(row)]
    return [i for i in usable_rows if rows[i].get("price_tier") != "older"] or usable_rows


# An older price is drawn faded: it cannot be compared with today's prices, so it must not read as one.
OLDER_FILL = 'fill-opacity="0.3" stroke="#7f7f7f" stroke-width="1" stroke-dasharray="2 2"'


def is_older(row: dict[str, Any]) -> bool:
    return usable(row) and row.get("price_tier") == "older"


def older_prices_apart(rows: list[dict[str, Any]]) -> bool:
    """Whether the charts tell older prices apart: only beside recent ones (where every price is
    old, none is older than the others)."""
    return any(is_older(row) for row in rows) and any(usable(row) and not is_older(row) for row in rows)


def faded_points(rows: list[dict[str, Any]]) -> set[int]:
    """The cards drawn faded: older prices, where recent ones are drawn beside them."""
    return {i for i, row in enumerate(rows) if is_older(row)} if older_prices_apart(rows) else set()


def bar_name(row: dict[str, Any], older_apart: bool) -> str:
    """A bar's card, marked when a desktop cannot use it, and with its price's month when that
    price is an older one (its value is not comparable with today's)."""
    if not usable(row):
        return short_name(row["model"]) + " \u2020"
    if older_apart and is_older(row):
        return f"{short_name(row['model'])} {older_month(row)}"
    return short_name(row["model"])


def older_month(row: dict[str, Any]) -> str:
    return f"({row['price_as_of']:%Y-%m})"


def bar_fade(row: dict[str, Any], older_apart: bool) -> str:
    if not usable(row):
        return ' fill-opacity="0.35" stroke-dasharray="3 2"'
    return ' fill-opacity="0.3"' if older_apart and is_older(row) else ""


def point_style(row: dict[str, Any], colour: str, faded: bool) -> str:
    if not usable(row):
        return f'fill="#fff" stroke="{colour}" stroke-width="2"'
    if faded:
        return f'fill="{colour}" {OLDER_FILL}'
    return f'fill="{colour}" stroke="#fff" stroke-width="1.5"'


def scatter_chart(rows: list[dict[str, Any]]) -> str:
    width, height = 1040, 560
    left, right, top, bottom = 70, 140, 20, 56
    prices = [row["price_usd"] for row in rows]
    perfs = [row["relative_perf"] for row in rows]
    x = Axis(min(prices) / 1.35, max(prices) * 1.35, left, width - right, log=True)
    y_ticks = nice_ticks(0.0, max(perfs) * 1.08, 6)
    y = Axis(y_ticks[0], y_ticks[-1], height - bottom, top)
    reference = rows[0]["reference_gpu"] if rows else "the reference"

    parts = []
    for tick in log_ticks(x.low, x.high):
        px = x(tick)
        parts.append(f'<line class="grid" x1="{_fmt(px)}" y1="{top}" x2="{_fmt(px)}" y2="{height - bottom}"/>')
        parts.append(f'<text class="tick" x="{_fmt(px)}" y="{height - bottom + 18}" text-anchor="middle">{usd_tick(tick)}</text>')
    for tick in y_ticks:
        py = y(tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{_fmt(py)}" x2="{width - right}" y2="{_fmt(py)}"/>')
        parts.append(f'<text class="tick" x="{left - 8}" y="{_fmt(py + 4)}" text-anchor="end">{tick:g}x</text>')
    parts.append(f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}"/>')
    parts.append(
        f'<text class="axis-label" x="{(left + width - right) / 2}" y="{height - 12}" text-anchor="middle">'
        f"Price (USD, log scale)</text>"
    )
    parts.append(
        f'<text class="axis-label" transform="translate(18 {(top + height - bottom) / 2}) rotate(-90)" '
        f'text-anchor="middle">Training speed relative to {escape(reference)}</text>'
    )

    candidates = frontier_candidates(rows)
    frontier = [candidates[i] for i in value_frontier([(prices[i], perfs[i]) for i in candidates])]
    segments: list[tuple[float, float, float, float]] = []
    if len(frontier) > 1:
        steps = [f"{_fmt(x(prices[frontier[0]]))},{_fmt(y(perfs[frontier[0]]))}"]
        for previous, current in zip(frontier, frontier[1:]):
            x0, x1 = x(prices[previous]), x(prices[current])
            y0, y1 = y(perfs[previous]), y(perfs[current])
            steps.append(f"{_fmt(x1)},{_fmt(y0)}")
            steps.append(f"{_fmt(x1)},{_fmt(y1)}")
            # Thin boxes along the step, shortened at the ends so the labels of its points still fit.
            if x1 - x0 > 16:
                segments.append((x0 + 8, y0 - 1, x1 - 8, y0 + 1))
            if y0 - y1 > 16:
                segments.append((x1 - 1, y1 + 8, x1 + 1, y0 - 8))
        parts.append(
            f'<polyline points="{" ".join(steps)}" fill="none" stroke="#1d2330" stroke-width="1.6" '
            f'stroke-dasharray="5 4" opacity="0.75"/>'
        )

    marks = 0
    faded = faded_points(rows)
    for index, row in enumerate(rows):
        colour = CLASS_COLOURS.get(memory_class(row.get("memory_gb")), UNKNOWN_CLASS_COLOUR)
        on_frontier = index in frontier
        radius = 7 if on_frontier else 5.5
        style = point_style(row, colour, index in faded)
        parts.append(
            f'<circle class="mark" cx="{_fmt(x(row["price_usd"]))}" cy="{_fmt(y(row["relative_perf"]))}" '
            f'r="{radius}" {style} data-tip="{escape(row_tip(row))}"><title>{escape(row_tip(row))}</title></circle>'
        )
        marks += 1

    # Label the frontier first (the point of the chart), then the best-ranked others if room remains.
    label_order = frontier + [i for i in sorted(range(len(rows)), key=lambda i: rows[i]["rank"]) if i not in frontier]
    anchors = [(x(prices[i]), y(perfs[i]), short_name(rows[i]["model"])) for i in label_order]
    placements = place_labels(
        anchors, (left, top, width - right + 10, height - bottom), [(a[0], a[1]) for a in anchors], segments
    )
    for index, placement in zip(label_order, placements):
        if placement is None:
            continue
        tx, ty, anchor, text = placement
        weight = "" if index in frontier else ' style="font-weight:500"'
        parts.append(f'<text class="point-label" x="{_fmt(tx)}" y="{_fmt(ty)}" text-anchor="{anchor}"{weight}>{escape(text)}</text>')

    legend_x = width - right + 24
    parts.append(f'<text class="legend" x="{legend_x}" y="{top + 10}" style="font-weight:700">Memory</text>')
    for number, label in enumerate(MEMORY_CLASS_LABELS):
        ly = top + 32 + number * 22
        parts.append(f'<circle cx="{legend_x + 6}" cy="{ly - 4}" r="6" fill="{CLASS_COLOURS[label]}"/>')
        parts.append(f'<text class="legend" x="{legend_x + 18}" y="{ly}">{escape(label)}</text>')
    ly = top + 32 + len(MEMORY_CLASS_LABELS) * 22 + 10
    parts.append(f'<line x1="{legend_x}" y1="{ly - 4}" x2="{legend_x + 14}" y2="{ly - 4}" stroke="#1d2330" stroke-width="1.6" stroke-dasharray="5 4"/>')
    parts.append(f'<text class="legend" x="{legend_x + 18}" y="{ly}">value frontier</text>')
    if any(not usable(row) for row in rows):  # the report draws usable cards only; other callers may not
        parts.append(f'<circle cx="{legend_x + 6}" cy="{ly + 18}" r="5" fill="#fff" stroke="#7f7f7f" stroke-width="2"/>')
        parts.append(f'<text class="legend" x="{legend_x + 18}" y="{ly + 22}">not usable</text>')
        parts.append(f'<text class="legend" x="{legend_x + 18}" y="{ly + 38}">on a desktop</text>')
    if faded:
        parts.append(f'<circle cx="{legend_x + 6}" cy="{ly + 56}" r="5" fill="#7f7f7f" {OLDER_FILL}/>')
        parts.append(f'<text class="legend" x="{legend_x + 18}" y="{ly + 60}">older price</text>')

    title = "Training speed against price"
    description = f"{marks} cards; the dashed line joins cards that no other card beats on both price and speed."
    return _svg_open("chart-scatter", width, height, marks, title, description) + "".join(parts) + "</svg>"


# --- chart (b): performance per dollar, grouped by memory class ---------------------------------------


def _ppd_groups(rows: list[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The best cards of each memory class, usable ones first, recently priced ones before older prices
    (as the ranking orders them: an old index price is not compared with today's)."""
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    for label in MEMORY_CLASS_LABELS:
        members = sorted(
            (row for row in rows if memory_class(row.get("memory_gb")) == label),
            key=lambda row: (not usable(row), row.get("price_tier") == "older", -row["perf_per_dollar"]),
        )[:BARS_PER_CLASS]
        if members:
            groups.append((label, members))
    unknown = [row for row in rows if memory_class(row.get("memory_gb")) is None][:BARS_PER_CLASS]
    if unknown:
        groups.append(("memory unknown", unknown))
    return groups


def ppd_chart(rows: list[dict[str, Any]]) -> str:
    groups = _ppd_groups(rows)

    width, left, right, top = 1040, 230, 80, 34
    bar, gap, group_gap = 20, 6, 30
    height = top + sum(len(m) * (bar + gap) + group_gap for _, m in groups) + 30
    values = [row["perf_per_dollar"] for _, members in groups for row in members] or [1.0]
    ticks = nice_ticks(0.0, max(values) * 1.05, 6)
    x = Axis(0.0, ticks[-1], left, width - right)
    bottom = height - 30

    parts = []
    for tick in ticks:
        px = x(tick)
        parts.append(f'<line class="grid" x1="{_fmt(px)}" y1="{top - 8}" x2="{_fmt(px)}" y2="{bottom}"/>')
        parts.append(f'<text class="tick" x="{_fmt(px)}" y="{bottom + 16}" text-anchor="middle">{tick:g}</text>')
    parts.append(
        f'<text class="axis-label" x="{(left + width - right) / 2}" y="{top - 16}" text-anchor="middle">'
        f"Relative training speed per $1,000</text>"
    )

    marks = 0
    cursor = top
    apart = older_prices_apart(rows)
    for label, members in groups:
        colour = CLASS_COLOURS.get(label, UNKNOWN_CLASS_COLOUR)
        parts.append(f'<text class="group-label" x="8" y="{cursor + 14}" fill="{colour}">{escape(label)}</text>')
        for row in members:
            bar_top = cursor
            length = x(row["perf_per_dollar"]) - left
            faded = bar_fade(row, apart)
            name = bar_name(row, False)
            parts.append(
                f'<text class="bar-label" x="{left - 8}" y="{bar_top + bar - 5}" text-anchor="end">{escape(name)}</text>'
            )
            parts.append(
                f'<rect class="mark" x="{left}" y="{bar_top}" width="{_fmt(max(length, 1.0))}" height="{bar}" rx="3" '
                f'fill="{colour}" stroke="{colour}"{faded} data-tip="{escape(row_tip(row))}">'
                f"<title>{escape(row_tip(row))}</title></rect>"
            )
            parts.append(
                f'<text class="bar-value" x="{_fmt(left + length + 6)}" y="{bar_top + bar - 5}">'
                f"{row['perf_per_dollar']:.2f}{' ' + older_month(row) if apart and is_older(row) else ''}</text>"
            )
            marks += 1
            cursor += bar + gap
        cursor += group_gap
    parts.append(f'<line class="axis" x1="{left}" y1="{top - 8}" x2="{left}" y2="{bottom}"/>')

    title = "Performance per dollar by memory class"
    description = f"{marks} bars: the best {BARS_PER_CLASS} cards of each memory class by speed per $1,000."
    return _svg_open("chart-ppd", width, height, marks, title, description) + "".join(parts) + "</svg>"


# --- chart (c): price history of the top cards --------------------------------------------------------


def date_ticks(first: date, last: date, count: int = 6) -> list[date]:
    span = max((last - first).days, 1)
    step = max(1, math.ceil(span / count))
    if step > 4:
        step = 7 * max(1, round(step / 7))
    return [first + timedelta(days=offset) for offset in range(0, span + 1, step)]


def history_chart(history: list[dict[str, Any]], models: list[str]) -> str:
    width, height = 1040, 420
    left, right, top, bottom = 70, 200, 20, 48
    series = {model: sorted((p for p in history if p["model"] == model), key=lambda p: p["as_of"]) for model in models}
    series = {model: points for model, points in series.items() if points}
    marks = sum(len(points) for points in series.values())
    if not series:
        return _svg_open("chart-history", width, 80, 0, "Price history", "No price history yet.") + (
            '<text x="20" y="40" class="axis-label">No price history recorded yet.</text></svg>'
        )
    days = [p["as_of"] for points in series.values() for p in points]
    prices = [p["price_usd"] for points in series.values() for p in points]
    first, last = min(days), max(days)
    span = (last - first).days
    # One day of history: centre it instead of pinning it to the left edge.
    x = Axis(-1.0, 1.0, left, width - right) if span == 0 else Axis(0.0, float(span), left, width - right)
    y_ticks = nice_ticks(min(prices) * 0.9, max(prices) * 1.05, 6)
    y = Axis(y_ticks[0], y_ticks[-1], height - bottom, top)

    def px(day: date) -> float:
        return x(float((day - first).days))

    parts = []
    for tick in y_ticks:
        py = y(tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{_fmt(py)}" x2="{width - right}" y2="{_fmt(py)}"/>')
        parts.append(f'<text class="tick" x="{left - 8}" y="{_fmt(py + 4)}" text-anchor="end">{usd_tick(tick)}</text>')
    for tick in date_ticks(first, last) if span else [first]:
        parts.append(f'<line class="grid" x1="{_fmt(px(tick))}" y1="{top}" x2="{_fmt(px(tick))}" y2="{height - bottom}"/>')
        parts.append(
            f'<text class="tick" x="{_fmt(px(tick))}" y="{height - bottom + 18}" text-anchor="middle">'
            f"{_date_label(tick, first, last)}</text>"
        )
    parts.append(f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}"/>')
    parts.append(
        f'<text class="axis-label" transform="translate(18 {(top + height - bottom) / 2}) rotate(-90)" '
        f'text-anchor="middle">Price (USD)</text>'
    )
    parts.append(f'<text class="axis-label" x="{(left + width - right) / 2}" y="{height - 8}" text-anchor="middle">'
                 "Date of the price (its newest observation)</text>")

    end_labels = []
    for number, (model, points) in enumerate(series.items()):
        colour = LINE_COLOURS[number % len(LINE_COLOURS)]
        dash = LINE_DASHES[number % len(LINE_DASHES)]
        parts += _history_lines(points, px, y, colour, dash, 2.2)
        for p in points:
            parts.append(_kind_mark(p["price_kind"], px(p["as_of"]), y(p["price_usd"]), 2.6, colour, _history_tip(model, p)))
        end_labels.append([y(points[-1]["price_usd"]), model, colour, px(points[-1]["as_of"])])

    # End-of-line labels, pushed apart so that close prices stay readable.
    end_labels.sort(key=lambda item: item[0])
    for index in range(1, len(end_labels)):
        end_labels[index][0] = max(end_labels[index][0], end_labels[index - 1][0] + 15)
    for label_y, model, colour, line_end in end_labels:
        parts.append(
            f'<text class="point-label" x="{_fmt(line_end + 10)}" y="{_fmt(label_y + 4)}" fill="{colour}">'
            f"{escape(short_name(model))}</text>"
        )

    title = "Price history of the top cards"
    description = (f"Prices of {len(series)} cards on their own observation dates, by kind, {marks} prices "
                   f"from {first} to {last}.")
    return _svg_open("chart-history", width, height, marks, title, description) + "".join(parts) + "</svg>"


# --- the same three charts laid out for a phone -------------------------------------------------------


def _legend_entry(x: float, y: float, swatch: str, label: str) -> str:
    return swatch + f'<text class="legend" x="{_fmt(x + 20)}" y="{_fmt(y + 5)}">{escape(label)}</text>'


def scatter_chart_narrow(rows: list[dict[str, Any]]) -> str:
    """Chart (a) for a narrow screen: square-ish plot, fewer labelled ticks, the legend below."""
    width, left, right, top, plot = NARROW_WIDTH, 48, 12, 14, 300
    axis_y = top + plot
    prices = [row["price_usd"] for row in rows]
    perfs = [row["relative_perf"] for row in rows]
    x = Axis(min(prices) / 1.35, max(prices) * 1.35, left, width - right, log=True)
    y_ticks = nice_ticks(0.0, max(perfs) * 1.08, 5)
    y = Axis(y_ticks[0], y_ticks[-1], axis_y, top)
    reference = rows[0]["reference_gpu"] if rows else "the reference"

    parts = []
    x_ticks = log_ticks(x.low, x.high)
    decades = [tick for tick in x_ticks if f"{tick:g}".lstrip("0.").startswith("1")]
    labelled = decades if len(decades) >= 2 else x_ticks
    for tick in x_ticks:
        px = x(tick)
        parts.append(f'<line class="grid" x1="{_fmt(px)}" y1="{top}" x2="{_fmt(px)}" y2="{axis_y}"/>')
        if tick in labelled:
            parts.append(f'<text class="tick" x="{_fmt(px)}" y="{axis_y + 18}" text-anchor="middle">{usd_tick(tick)}</text>')
    for tick in y_ticks:
        py = y(tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{_fmt(py)}" x2="{width - right}" y2="{_fmt(py)}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{_fmt(py + 4)}" text-anchor="end">{tick:g}x</text>')
    parts.append(f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{axis_y}"/>')
    parts.append(f'<text class="axis-label" x="{(left + width - right) / 2}" y="{axis_y + 40}" text-anchor="middle">'
                 "Price (USD, log scale)</text>")
    parts.append(f'<text class="axis-label" transform="translate(14 {(top + axis_y) / 2}) rotate(-90)" '
                 f'text-anchor="middle">Speed (1 = {escape(short_name(reference))})</text>')

    candidates = frontier_candidates(rows)
    frontier = [candidates[i] for i in value_frontier([(prices[i], perfs[i]) for i in candidates])]
    if len(frontier) > 1:
        steps = [f"{_fmt(x(prices[frontier[0]]))},{_fmt(y(perfs[frontier[0]]))}"]
        for previous, current in zip(frontier, frontier[1:]):
            steps.append(f"{_fmt(x(prices[current]))},{_fmt(y(perfs[previous]))}")
            steps.append(f"{_fmt(x(prices[current]))},{_fmt(y(perfs[current]))}")
        parts.append(f'<polyline points="{" ".join(steps)}" fill="none" stroke="#1d2330" stroke-width="1.6" '
                     f'stroke-dasharray="5 4" opacity="0.75"/>')
    marks = 0
    faded = faded_points(rows)
    for index, row in enumerate(rows):
        colour = CLASS_COLOURS.get(memory_class(row.get("memory_gb")), UNKNOWN_CLASS_COLOUR)
        style = point_style(row, colour, index in faded)
        parts.append(
            f'<circle class="mark" cx="{_fmt(x(row["price_usd"]))}" cy="{_fmt(y(row["relative_perf"]))}" '
            f'r="{6 if index in frontier else 5}" {style} data-tip="{escape(row_tip(row))}">'
            f"<title>{escape(row_tip(row))}</title></circle>"
        )
        marks += 1
    # Only the frontier is labelled: a phone has room for the point of the chart, not for every card.
    anchors = [(x(prices[i]), y(perfs[i]), short_name(rows[i]["model"])) for i in frontier]
    every_point = [(x(p), y(q)) for p, q in zip(prices, perfs)]
    for placement in place_labels(anchors, (left, top, width - right, axis_y), every_point,
                                  char_width=NARROW_CHAR_WIDTH):
        if placement is not None:
            tx, ty, anchor, text = placement
            parts.append(f'<text class="point-label" x="{_fmt(tx)}" y="{_fmt(ty)}" text-anchor="{anchor}">'
                         f"{escape(text)}</text>")

    legend_top = axis_y + 62
    entries = [(f'<circle cx="{{x}}" cy="{{y}}" r="6" fill="{CLASS_COLOURS[label]}"/>', label)
               for label in MEMORY_CLASS_LABELS]
    entries.append(('<line x1="{x0}" y1="{y}" x2="{x1}" y2="{y}" stroke="#1d2330" stroke-width="1.6" '
                    'stroke-dasharray="5 4"/>', "value frontier"))
    if any(not usable(row) for row in rows):
        entries.append(('<circle cx="{x}" cy="{y}" r="5" fill="#fff" stroke="#7f7f7f" stroke-width="2"/>', "not usable"))
    if faded:
        entries.append((f'<circle cx="{{x}}" cy="{{y}}" r="5" fill="#7f7f7f" {OLDER_FILL}/>', "older price"))
    columns, row_height = 2, 22
    for number, (swatch, label) in enumerate(entries):
        ex = 12 + (number % columns) * (width - 24) / columns
        ey = legend_top + (number // columns) * row_height
        parts.append(_legend_entry(ex, ey, swatch.format(x=_fmt(ex + 7), y=_fmt(ey), x0=_fmt(ex), x1=_fmt(ex + 14)),
                                   label))
    height = legend_top + math.ceil(len(entries) / columns) * row_height

    title = "Training speed against price"
    description = f"{marks} cards; the dashed line joins cards that no other card beats on both price and speed."
    return _svg_open("chart-scatter-narrow", width, height, marks, title, description, narrow=True) + "".join(parts) + "</svg>"


def ppd_chart_narrow(rows: list[dict[str, Any]]) -> str:
    """Chart (b) for a narrow screen: each card's name above its bar instead of beside it."""
    groups = _ppd_groups(rows)
    width, left, right, top = NARROW_WIDTH, 8, 44, 30
    name_height, bar, gap, group_label, group_gap = 17, 14, 9, 22, 10
    values = [row["perf_per_dollar"] for _, members in groups for row in members] or [1.0]
    ticks = nice_ticks(0.0, max(values) * 1.05, 4)
    x = Axis(0.0, ticks[-1], left, width - right)
    bottom = top + sum(group_label + len(m) * (name_height + bar + gap) + group_gap for _, m in groups)
    height = bottom + 24

    parts = [f'<text class="axis-label" x="{left}" y="{top - 14}">Relative training speed per $1,000</text>']
    for tick in ticks:
        px = x(tick)
        parts.append(f'<line class="grid" x1="{_fmt(px)}" y1="{top - 6}" x2="{_fmt(px)}" y2="{bottom}"/>')
        parts.append(f'<text class="tick" x="{_fmt(px)}" y="{bottom + 17}" text-anchor="middle">{tick:g}</text>')
    marks = 0
    cursor = top
    apart = older_prices_apart(rows)
    for label, members in groups:
        colour = CLASS_COLOURS.get(label, UNKNOWN_CLASS_COLOUR)
        parts.append(f'<text class="group-label" x="{left}" y="{cursor + 15}" fill="{colour}">{escape(label)}</text>')
        cursor += group_label
        for row in members:
            name = bar_name(row, apart)
            length = x(row["perf_per_dollar"]) - left
            faded = bar_fade(row, apart)
            bar_top = cursor + name_height
            parts.append(f'<text class="bar-label" x="{left}" y="{cursor + 13}">{escape(name)}</text>')
            parts.append(
                f'<rect class="mark" x="{left}" y="{bar_top}" width="{_fmt(max(length, 1.0))}" height="{bar}" rx="3" '
                f'fill="{colour}" stroke="{colour}"{faded} data-tip="{escape(row_tip(row))}">'
                f"<title>{escape(row_tip(row))}</title></rect>"
            )
            parts.append(f'<text class="bar-value" x="{_fmt(left + length + 5)}" y="{bar_top + bar - 2}">'
                         f"{row['perf_per_dollar']:.2f}</text>")
            marks += 1
            cursor += name_height + bar + gap
        cursor += group_gap

    title = "Performance per dollar by memory class"
    description = f"{marks} bars: the best {BARS_PER_CLASS} cards of each memory class by speed per $1,000."
    return _svg_open("chart-ppd-narrow", width, height, marks, title, description, narrow=True) + "".join(parts) + "</svg>"


def history_chart_narrow(history: list[dict[str, Any]], models: list[str]) -> str:
    """Chart (c) for a narrow screen: fewer date ticks, and a legend below instead of end labels."""
    width, left, right, top, plot = NARROW_WIDTH, 48, 14, 14, 230
    axis_y = top + plot
    series = {model: sorted((p for p in history if p["model"] == model), key=lambda p: p["as_of"]) for model in models}
    series = {model: points for model, points in series.items() if points}
    marks = sum(len(points) for points in series.values())
    if not series:
        return _svg_open("chart-history-narrow", width, 60, 0, "Price history", "No price history yet.", narrow=True) + (
            '<text x="8" y="34" class="axis-label">No price history recorded yet.</text></svg>'
        )
    days = [p["as_of"] for points in series.values() for p in points]
    prices = [p["price_usd"] for points in series.values() for p in points]
    first, last = min(days), max(days)
    span = (last - first).days
    x = Axis(-1.0, 1.0, left, width - right) if span == 0 else Axis(0.0, float(span), left, width - right)
    y_ticks = nice_ticks(min(prices) * 0.9, max(prices) * 1.05, 5)
    y = Axis(y_ticks[0], y_ticks[-1], axis_y, top)

    def px(day: date) -> float:
        return x(float((day - first).days))

    parts = []
    for tick in y_ticks:
        py = y(tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{_fmt(py)}" x2="{width - right}" y2="{_fmt(py)}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{_fmt(py + 4)}" text-anchor="end">{usd_tick(tick)}</text>')
    for tick in date_ticks(first, last, 3) if span else [first]:
        parts.append(f'<line class="grid" x1="{_fmt(px(tick))}" y1="{top}" x2="{_fmt(px(tick))}" y2="{axis_y}"/>')
        parts.append(f'<text class="tick" x="{_fmt(px(tick))}" y="{axis_y + 18}" text-anchor="middle">'
                     f"{_date_label(tick, first, last)}</text>")
    parts.append(f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{axis_y}"/>')
    # No rotated axis title: the dollar ticks say what the axis is, and it would touch them here.

    legend_top, row_height = axis_y + 44, 22
    for number, (model, points) in enumerate(series.items()):
        colour = LINE_COLOURS[number % len(LINE_COLOURS)]
        dash = LINE_DASHES[number % len(LINE_DASHES)]
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        parts += _history_lines(points, px, y, colour, dash, 2.2)
        for p in points:
            parts.append(_kind_mark(p["price_kind"], px(p["as_of"]), y(p["price_usd"]), 3, colour, _history_tip(model, p)))
        ly = legend_top + number * row_height
        swatch = (f'<line x1="8" y1="{ly}" x2="30" y2="{ly}" stroke="{colour}" stroke-width="2.6"{dash_attr}/>')
        parts.append(swatch + f'<text class="legend" x="38" y="{ly + 5}">{escape(short_name(model))} '
                     f'<tspan class="legend-value">{usd(points[-1]["price_usd"])}</tspan></text>')
    height = legend_top + len(series) * row_height - 4

    title = "Price history of the top cards"
    description = (f"Prices of {len(series)} cards on their own observation dates, by kind, {marks} prices "
                   f"from {first} to {last}.")
    return _svg_open("chart-history-narrow", width, height, marks, title, description, narrow=True) + "".join(parts) + "</svg>"


# --- table, facts and footer --------------------------------------------------------------------------


def ranking_table(rows: list[dict[str, Any]], comparable_days: int | None = None) -> str:
    head = (
        "<tr><th class=num>#</th><th>Model</th><th class=num>Memory</th><th class=num>Price</th>"
        "<th>Price basis</th><th>Price date</th><th class=num>Speed</th><th>Speed source</th>"
        "<th class=num>Perf / $1k</th></tr>"
    )
    body = []
    tiers = split_tiers(rows)
    heading = {id(part[0]): tier_title(tier, part, comparable_days) for tier, part in tiers} if len(tiers) > 1 else {}
    for row in rows:
        if id(row) in heading:  # recent prices, then older ones apart, as `rank` shows them
            body.append(f'<tr class="tier"><th colspan=9>{escape(heading[id(row)])}</th></tr>')
        memory = f"{row['memory_gb']:g} GB" if row.get("memory_gb") is not None else "?"
        kind = row["price_kind"]
        basis = f'<span class="badge {kind}">{kind}</span>'
        if kind != "launch":
            basis += f' <span class="small">n={row["price_n"]}</span>'
        if row.get("price_q1") is not None and row.get("price_q3") is not None:
            basis += f'<br><span class="small">IQR {usd(row["price_q1"])}\u2013{usd(row["price_q3"])}</span>'
        stale = '<span class="badge stale">stale</span>' if row.get("stale") else ""
        flag = unusable_reason(row)
        flag_html = f'<br><span class="badge flag">{escape(flag)}</span>' if flag else ""
        if caveat := card_caveat(row):  # not CUDA: what the buyer gives up, in the card's own cell
            flag_html += f'<br><span class="small stack">{escape(caveat)}</span>'
        detail = " \u00b7 ".join(x for x in (row.get("architecture"), row.get("segment")) if x)
        method = row.get("perf_method") or ""
        body.append(
            f'<tr class="{"unusable" if flag else ""}"><td class=num>{row["rank"]}</td>'
            f'<td><strong>{escape(row["model"])}</strong><br><span class="small">{escape(detail)}</span>{flag_html}</td>'
            f"<td class=num>{memory}</td><td class=num>{usd(row['price_usd'])}</td><td>{basis}</td>"
            f"<td class=when>{price_date_words(row)}<br>{stale}</td>"
            f"<td class=num>{row['relative_perf']:.2f}\u00d7</td>"
            f'<td>{escape(row["perf_source"])}<br><span class="small">{escape(method)}</span></td>'
            f"<td class=num><strong>{row['perf_per_dollar']:.2f}</strong></td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def facts(data: ReportData) -> str:
    best = next((row for row in data.rows if usable(row)), None)
    newest_price = max(row["price_as_of"] for row in data.rows)
    stale = sum(1 for row in data.rows if row.get("stale"))
    cards = [
        ("Best value", short_name(best["model"]) if best else "none",
         f"{best['perf_per_dollar']:.2f} perf per $1k at {usd(best['price_usd'])}" if best else ""),
        ("Reference card", data.rows[0]["reference_gpu"], f"speed 1.0\u00d7, {data.rows[0]['perf_precision']} training"),
        ("Cards ranked", str(len(data.rows)), f"{stale} with stale prices"),
        ("Newest price", newest_price.isoformat(), f"ranking of {data.as_of.isoformat()}"),
    ]
    return '<div class="facts">' + "".join(
        f'<div class="fact"><div class="label">{escape(label)}</div><div class="value">{escape(value)}</div>'
        f'<div class="detail">{escape(detail)}</div></div>'
        for label, value, detail in cards
    ) + "</div>"


def sources_footer(data: ReportData) -> str:
    dash = "\u2014"
    rows = "".join(
        f"<tr><td>{escape(s['name'])}</td><td>{escape(s['kind'])}</td><td>{escape(s['status'])}</td>"
        f"<td class=when>{escape((s['fetched_at'] or dash).replace('T', ' ')[:16])}</td>"
        f"<td class=when>{escape(s['as_of'] or dash)}</td>"
        f"<td>{escape(s['attribution'])}</td><td>{escape(s['licence'])}</td></tr>"
        for s in data.sources
    )
    credits = "".join(f"<li>{escape(line)}</li>" for line in attribution_lines(data.sources))
    return (
        "<footer><h2>Sources and freshness</h2>"
        '<div class="table-wrap"><table><tr><th>Source</th><th>Kind</th><th>Last run</th><th>Last fetched</th>'
        f"<th>Data as of</th><th>Attribution</th><th>Licence</th></tr>{rows}</table></div>"
        f"<h2>Attribution</h2><ul>{credits}</ul>"
        f"<p>Ranking of {data.as_of.isoformat()}; speeds are training throughput relative to "
        f"{escape(data.rows[0]['reference_gpu'])}; prices include shipping, in USD. "
        f"Generated {data.generated_at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC by gpuvalue.</p></footer>"
    )


def scatter_caption(rows: list[dict[str, Any]], reference: str) -> str:
    """Which price the dots stand at, with how many cards each kind prices and how old they are."""
    kinds = [kind for kind in PRICE_KIND_WORDS if any(row["price_kind"] == kind for row in rows)]
    basis = ", ".join(
        f"{sum(1 for row in rows if row['price_kind'] == kind)} at the {price_kind_words(kind)}" for kind in kinds
    )
    days = sorted(row["price_as_of"] for row in rows)
    beaten_by = ("any other recently priced card (older prices are drawn faded and stand apart, as in the ranking)"
                 if faded_points(rows) else "any other card")
    return (
        f"Each dot is a card at the price the ranking uses, not a price of today: {escape(basis)}; the prices date "
        f"from {days[0].isoformat()} to {days[-1].isoformat()}. Cards on the dashed value frontier are not beaten on "
        f"both price and speed by {beaten_by}. Speed is relative to {escape(reference)}; hover a dot for its "
        f"price date and speed source."
    )


def history_caption(history: list[dict[str, Any]], models: list[str]) -> str:
    """What the history plots: each kind of price on its own observation date, and how the kinds are drawn."""
    points = [p for p in history if p["model"] in models]
    shown = {p["model"] for p in points}
    kinds = [kind for kind in PRICE_KIND_WORDS if any(p["price_kind"] == kind for p in points)]
    marks = "; ".join(f"{PRICE_KIND_MARKERS[kind]}: {price_kind_words(kind)}" for kind in kinds)
    days = sorted(p["as_of"] for p in points)
    span = f"{days[0].isoformat()} to {days[-1].isoformat()}" if days else "no dates yet"
    return (
        f"Prices of the {len(shown)} best-value usable cards, each drawn on the date of its newest observation "
        f"(not on the day of the ranking), one line per kind of price"
        + (f" ({escape(marks)})" if marks else "") + f"; {span}."
    )




def replay_banner(data: ReportData) -> str:
    if not data.replay:
        return ""
    return (
        '<p class="replay"><strong>Replay:</strong> built offline from recorded pages; no page was fetched for '
        f"{data.as_of.isoformat()}. Every price is as old as its recording (see each price date and the data "
        "dates under Sources and freshness).</p>"
    )


def old_ranking_banner(data: ReportData) -> str:
    """A report written today of a ranking of long ago says so before anything else."""
    note = ranking_day_note(data.as_of, data.generated_at.astimezone(timezone.utc).date())
    return f'<p class="replay">{escape(note)}</p>' if note else ""


def render_report(data: ReportData, *, top_n: int = 20, comparable_days: int | None = None) -> str:
    """The whole page as a string: pure, so that it can be checked without a browser."""
    if not data.rows:
        raise ExportError("nothing to report: the ranking is empty")
    css = (ASSETS / "report.css").read_text(encoding="utf-8")
    script = (ASSETS / "tooltip.js").read_text(encoding="utf-8")
    top_models = [row["model"] for row in data.rows if usable(row)][:HISTORY_LINES]
    reference = escape(data.rows[0]["reference_gpu"])
    sections = [
        (
            "Speed against price",
            scatter_caption(data.rows, data.rows[0]["reference_gpu"]),
            _both_layouts(scatter_chart(data.rows), scatter_chart_narrow(data.rows)),
        ),
        (
            "Performance per dollar, by memory class",
            " ".join(part for part in (
                f"Relative training speed per $1,000, the best {BARS_PER_CLASS} per memory class.",
                "\u2020 marks cards you cannot use on a desktop or with current frameworks."
                if any(not usable(row) for row in data.rows) else "",
                "A faded bar with a month in brackets is an older price (that month's), not comparable with today's."
                if older_prices_apart(data.rows) else "") if part),
            _both_layouts(ppd_chart(data.rows), ppd_chart_narrow(data.rows)),
        ),
        (
            "Price history of the top cards",
            history_caption(data.history, top_models),
            _both_layouts(history_chart(data.history, top_models), history_chart_narrow(data.history, top_models)),
        ),
        (
            f"Ranking: top {min(top_n, len(data.rows))} of {len(data.rows)}",
            "Price basis: sold = median of sold listings, asking = lower quartile of fixed-price asking prices, index = a "
            "published monthly average of sold prices for a card without own listings, launch = launch price "
            "(no market data). Stale prices are older than the price window; older prices are ranked after the "
            "recent ones, compared only with each other.",
            '<p class="narrow-only small">Swipe the table sideways for every column.</p>'
            f'<div class="table-wrap">{ranking_table(data.rows[:top_n], comparable_days)}</div>'
            + (f'<p class="small">{escape(data.hidden)}</p>' if data.hidden else ""),
        ),
    ]
    sections += _rental_sections(data)
    body = "".join(
        f'<section class="card"><h2>{escape(title)}</h2><p class="sub">{sub}</p>{content}</section>'
        for title, sub, content in sections
    )
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>GPU value for deep learning, {data.as_of.isoformat()}</title>"
        f"<style>{css}</style></head><body><main>"
        f"<header><h1>GPU value for deep learning</h1><p>Training speed per dollar, ranking of "
        f"{data.as_of.isoformat()}. Speed relative to {reference}.</p>{replay_banner(data)}{old_ranking_banner(data)}</header>"
        f"{facts(data)}{body}{sources_footer(data)}</main>"
        f'<div id="tooltip" role="tooltip"></div><script>{script}</script></body></html>\n'
    )


def _rental_sections(data: ReportData) -> list[tuple[str, str, str]]:
    """The rent-or-buy chart and the rental table (gpuvalue.warehouse.rental_report), when there are rental prices."""
    from gpuvalue.warehouse.rental_report import rental_sections

    return rental_sections(data.rental)


def report_data(con: duckdb.DuckDBPyConnection, *, generated_at: datetime | None = None,
                rent_assumptions: Any = None, view: BuyerView | None = None) -> ReportData:
    view = view or BuyerView()
    ranked = ranking_rows(con)
    rows = shown_ranking(ranked, view)
    if ranked and not rows:  # every card of the day hidden (too little memory, unsupported, ...)
        raise ExportError(f"nothing to report: none of the {len(ranked)} cards ranked on {ranked[0]['as_of']} "
                          "passes the default filter of `gpuvalue rank`; `gpuvalue rank --all` lists them")
    return ReportData(
        as_of=rows[0]["as_of"],
        rows=rows,
        # Each price on the date of its newest observation, not on the ranking day that used it.
        history=sql_files.dicts(con, "report_price_history"),
        sources=sources_from_db(con),
        generated_at=generated_at or datetime.now(timezone.utc),
        rental=_rental_data(con, rent_assumptions, view, ranked),
        replay=ranking_is_replay(con, rows[0]["as_of"]),
        hidden=hidden_summary(ranked, view),
    )


def _rental_data(con: duckdb.DuckDBPyConnection, rent_assumptions: Any, view: BuyerView,
                 ranked: list[dict[str, Any]]) -> Any:
    from gpuvalue.warehouse.rental_report import rental_report_data

    return rental_report_data(con, rent_assumptions, view, ranked=ranked)


def shown_ranking(rows: list[dict[str, Any]], view: BuyerView) -> list[dict[str, Any]]:
    """The cards ``rank`` shows by default, numbered by their place among them (``rank_overall`` keeps the
    full ranking's); the report draws and lists only these."""
    return [dict(r, rank=r["rank_shown"], rank_overall=r["rank"]) for r in shown_rows(rows, view)]


def write_report(
    con: duckdb.DuckDBPyConnection,
    out_dir: str | os.PathLike[str],
    *,
    top_n: int = 20,
    generated_at: datetime | None = None,
    rent_assumptions: Any = None,
    view: BuyerView | None = None,
    comparable_days: int | None = None,
) -> Path:
    """Write ``index.html`` for the latest ranking into ``out_dir`` (created if missing), or to ``out_dir``
    itself when it names an ``.html`` file (``--out report.html`` means that file, not a folder of that
    name); ``rent_assumptions`` (models.rent_vs_buy.Assumptions, default its defaults) are those of the
    rent-or-buy chart."""
    target = Path(out_dir)
    if target.suffix.lower() in (".html", ".htm") and not target.is_dir():
        path = prepare_export_dir(target.parent) / target.name
    else:
        path = prepare_export_dir(target) / "index.html"
    html = render_report(report_data(con, generated_at=generated_at, rent_assumptions=rent_assumptions, view=view),
                         top_n=top_n, comparable_days=comparable_days)
    return write_text_atomic(path, html)
