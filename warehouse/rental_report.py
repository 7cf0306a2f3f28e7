"""The report's rent-or-buy part: a chart of what a reference-card hour costs against the hours a week of
training, one line per buy option and per rent option, and the rental ranking table.

Drawn as inline SVG with the report's own scales and styles (``gpuvalue.warehouse.report``), in a wide
and a phone layout like its other charts. Buying a card costs less per hour the more it is used
(its loss of value is spread over more hours; electricity stays), renting costs the same every hour:
where a buy line crosses a rent line is that pair's break-even.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date
from html import escape
from typing import Any

import duckdb

from gpuvalue.models.buyer_view import BuyerView, hidden_because
from gpuvalue.models.rent_vs_buy import HOURS_PER_WEEK, Assumptions, buy_cost_per_reference_hour, buy_options, \
    rent_cost_per_reference_hour
from gpuvalue.warehouse.report_svg import (
    LINE_COLOURS, NARROW_WIDTH, Axis, _both_layouts, _svg_open, _fmt, log_ticks, short_name,
)

BUY_LINES = 3
RENT_LINES = 3
TABLE_ROWS = 20
HOUR_TICKS = (1, 2, 5, 10, 20, 50, 100, 168)
SAMPLES = 48  # points per buy curve, evenly spaced on the log axis


@dataclass(frozen=True)
class RentalReport:
    rows: list[dict[str, Any]]  # rent_ranking_latest, best first
    used: list[dict[str, Any]]  # the latest used ranking
    assumptions: Assumptions


@dataclass(frozen=True)
class Line:
    action: str  # buy | rent
    model: str
    label: str
    tip: str
    points: list[tuple[float, float]]  # (hours a week, USD per reference hour)
    at_assumed: float


def rental_report_data(con: duckdb.DuckDBPyConnection, assumptions: Assumptions | None = None,
                       view: BuyerView | None = None, *, ranked: list[dict[str, Any]] | None = None
                       ) -> RentalReport | None:
    """What the rental part of the report shows; None while the warehouse holds no rental prices.
    The used cards it may buy are those the rest of the report shows (``view``, default `rank`'s), of
    the day's ranking (``ranked``, when the caller has read it already)."""
    from gpuvalue.warehouse.export import ranking_rows
    from gpuvalue.warehouse.rental_export import has_rental_prices, rental_rows

    if not has_rental_prices(con):
        return None
    rows = [r for r in rental_rows(con) if r.get("rank")]
    if not rows:
        return None
    used = ranking_rows(con) if ranked is None else ranked
    shown = [r for r in used if hidden_because(r, view or BuyerView()) is None]
    return RentalReport(rows=rows, used=shown, assumptions=assumptions or Assumptions())


def _hours_axis() -> list[float]:
    low, high = math.log10(1.0), math.log10(HOURS_PER_WEEK)
    return [10 ** (low + (high - low) * i / (SAMPLES - 1)) for i in range(SAMPLES)]


def chart_lines(data: RentalReport) -> list[Line]:
    """The buy options (the used cards with the cheapest reference hour at the assumed hours, recently
    priced ones first as in the ranking, usable on a desktop with current frameworks) and the rent
    options (the cheapest reference hours rented on demand)."""
    a = data.assumptions
    usable_used = [r for r in data.used if r.get("framework_supported") is not False]
    buys = buy_options(usable_used, math.inf, a)[:BUY_LINES]
    rents = [r for r in data.rows if r.get("framework_supported") is not False][:RENT_LINES]
    reference = data.rows[0]["reference_gpu"]
    lines = []
    for option in buys:
        points = [(h, buy_cost_per_reference_hour(option.price, option.relative_perf, option.tdp_w, a.with_hours(h)))
                  for h in _hours_axis()]
        tip = (f"Buy {option.model} used at ${option.price:,.0f} ({option.basis})\n"
               f"${option.usd_per_reference_hour:.3f} per {reference}-hour at {a.hours_per_week:g} h a week")
        lines.append(Line("buy", option.model, f"buy {short_name(option.model)}", tip, points, option.usd_per_reference_hour))
    for row in rents:
        cost = rent_cost_per_reference_hour(row["usd_per_gpu_hour"], row["relative_perf"])
        when = row["price_as_of"].isoformat() if isinstance(row.get("price_as_of"), date) else "?"
        tip = (f"Rent {row['model']} at ${row['usd_per_gpu_hour']:.2f}/GPU-hour on {row['provider']} (price of {when})\n"
               f"${cost:.3f} per {reference}-hour at any hours a week")
        lines.append(Line("rent", row["model"], f"rent {short_name(row['model'])}", tip,
                          [(1.0, cost), (HOURS_PER_WEEK, cost)], cost))
    return lines


def rent_or_buy_chart(data: RentalReport, *, narrow: bool = False) -> str:
    """Cost of a reference-card hour against hours a week of training (both axes log)."""
    chart_id = "chart-rentbuy-narrow" if narrow else "chart-rentbuy"
    lines = chart_lines(data)
    a = data.assumptions
    reference = data.rows[0]["reference_gpu"]
    title = "Rent or buy: cost of a reference-card hour"
    if narrow:
        width, left, right, top, plot = NARROW_WIDTH, 52, 12, 14, 280
        height = top + plot + 44 + 20 * len(lines) + 10
        bottom_axis = top + plot
    else:
        width, height, left, right, top = 1040, 460, 80, 200, 20
        bottom_axis = height - 56
    costs = [c for line in lines for _, c in line.points]
    if not costs:
        return _svg_open(chart_id, width, 80, 0, title, "No options to draw.", narrow=narrow) + (
            '<text x="20" y="40" class="axis-label">No buy or rent option to draw.</text></svg>')
    x = Axis(1.0, HOURS_PER_WEEK, left, width - right, log=True)
    y = Axis(min(costs) / 1.25, max(costs) * 1.25, bottom_axis, top, log=True)
    parts = []
    for tick in HOUR_TICKS if not narrow else (1, 3, 10, 30, 168):
        px = x(tick)
        parts.append(f'<line class="grid" x1="{_fmt(px)}" y1="{top}" x2="{_fmt(px)}" y2="{bottom_axis}"/>')
        parts.append(f'<text class="tick" x="{_fmt(px)}" y="{bottom_axis + 18}" text-anchor="middle">{tick:g}</text>')
    y_ticks = log_ticks(y.low, y.high)
    if narrow and len(y_ticks) > 5:
        y_ticks = y_ticks[::2]
    for tick in y_ticks:
        py = y(tick)
        parts.append(f'<line class="grid" x1="{left}" y1="{_fmt(py)}" x2="{width - right}" y2="{_fmt(py)}"/>')
        parts.append(f'<text class="tick" x="{left - 6}" y="{_fmt(py + 4)}" text-anchor="end">${tick:g}</text>')
    parts.append(f'<line class="axis" x1="{left}" y1="{bottom_axis}" x2="{width - right}" y2="{bottom_axis}"/>')
    parts.append(f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{bottom_axis}"/>')
    parts.append(f'<text class="axis-label" x="{(left + width - right) / 2}" y="{bottom_axis + 38}" text-anchor="middle">'
                 "Hours of training a week (log scale)</text>")
    parts.append(f'<text class="axis-label" transform="translate({14 if narrow else 18} {(top + bottom_axis) / 2}) rotate(-90)" '
                 f'text-anchor="middle">USD per {escape(short_name(reference))}-hour (log)</text>')
    assumed = x(a.hours_per_week)
    parts.append(f'<line x1="{_fmt(assumed)}" y1="{top}" x2="{_fmt(assumed)}" y2="{bottom_axis}" stroke="#1d2330" '
                 'stroke-width="1.2" stroke-dasharray="3 3" opacity="0.7"/>')

    marks = 0
    labels = []
    for number, line in enumerate(lines):
        colour = LINE_COLOURS[number % len(LINE_COLOURS)]
        dash = "" if line.action == "buy" else ' stroke-dasharray="7 4"'
        path = " ".join(f"{_fmt(x(h))},{_fmt(y(c))}" for h, c in line.points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2.4"{dash} stroke-linejoin="round"/>')
        parts.append(f'<circle class="mark" cx="{_fmt(assumed)}" cy="{_fmt(y(line.at_assumed))}" r="4.5" fill="{colour}" '
                     f'stroke="#fff" stroke-width="1.2" data-tip="{escape(line.tip)}"><title>{escape(line.tip)}</title></circle>')
        marks += 1
        labels.append([y(line.points[-1][1]), line.label, colour, dash])
    if narrow:
        for number, (_, label, colour, dash) in enumerate(labels):
            ly = bottom_axis + 62 + number * 20
            parts.append(f'<line x1="{left}" y1="{ly - 4}" x2="{left + 22}" y2="{ly - 4}" stroke="{colour}" stroke-width="2.4"{dash}/>')
            parts.append(f'<text class="legend" x="{left + 30}" y="{ly}">{escape(label)}</text>')
    else:
        labels.sort(key=lambda item: item[0])
        for index in range(1, len(labels)):
            labels[index][0] = max(labels[index][0], labels[index - 1][0] + 15)
        for label_y, label, colour, _ in labels:
            parts.append(f'<text class="point-label" x="{_fmt(width - right + 10)}" y="{_fmt(label_y + 4)}" '
                         f'fill="{colour}">{escape(label)}</text>')
    description = (f"{len(lines)} options: solid lines buy a used card, dashed lines rent one; the dotted vertical "
                   f"line is {a.hours_per_week:g} h a week. Assumptions: {a.describe()}.")
    return _svg_open(chart_id, width, height, marks, title, description, narrow=narrow) + "".join(parts) + "</svg>"


def rental_table(rows: list[dict[str, Any]]) -> str:
    head = ("<tr><th class=num>#</th><th>Model</th><th class=num>Memory</th><th class=num>$/GPU-hour</th><th>Provider</th>"
            "<th class=num>Speed</th><th class=num>$ per ref. hour</th><th class=num>Spot $/GPU-hour</th>"
            "<th class=num>Providers</th><th>Price date</th></tr>")
    body = []
    for r in rows:
        memory = f"{r['memory_gb']:g} GB" if r.get("memory_gb") is not None else "?"
        spot = f"${r['spot_usd_per_gpu_hour']:.2f} ({escape(r['spot_provider'])})" if r.get("spot_usd_per_gpu_hour") else "\u2014"
        flag = '<br><span class="badge flag">no current framework support</span>' if r.get("framework_supported") is False else ""
        when = r["price_as_of"].isoformat() if isinstance(r.get("price_as_of"), date) else "?"
        body.append(
            f"<tr><td class=num>{r['rank']}</td><td><strong>{escape(r['model'])}</strong>{flag}</td><td class=num>{memory}</td>"
            f"<td class=num>${r['usd_per_gpu_hour']:.2f}</td><td>{escape(r['provider'] or '')}</td>"
            f"<td class=num>{r['relative_perf']:.2f}\u00d7</td><td class=num><strong>${r['usd_per_reference_hour']:.3f}</strong></td>"
            f"<td class=num>{spot}</td><td class=num title=\"{escape(r['providers'])}\">{r['provider_count']}</td>"
            f"<td class=when>{when}</td></tr>"
        )
    return f"<table>{head}{''.join(body)}</table>"


def rental_sections(data: RentalReport | None) -> list[tuple[str, str, str]]:
    """(title, subtitle HTML, content HTML) of the report's rental sections; none without rental prices."""
    if data is None:
        return []
    a = data.assumptions
    reference = escape(data.rows[0]["reference_gpu"])
    newest = data.rows[0]["as_of"].isoformat()
    chart = _both_layouts(rent_or_buy_chart(data), rent_or_buy_chart(data, narrow=True))
    return [
        (
            "Rent or buy: what an hour of training costs",
            f"Cost of one hour of training at {reference} speed, against hours of training a week. Solid lines buy "
            f"the used cards with the cheapest such hour at {a.hours_per_week:g} h a week; dashed lines rent the cheapest "
            f"cloud cards on demand. Where a buy line falls below a rent line, buying is cheaper. "
            f"Assumptions: {escape(a.describe())}.",
            chart,
        ),
        (
            f"Cloud rental: top {min(TABLE_ROWS, len(data.rows))} of {len(data.rows)}",
            f"Cheapest on-demand price per GPU-hour across providers, each provider's newest prices on or before {newest} "
            "(SkyPilot's catalogs, Full Stack Deep Learning's cloud GPU table); the price date is that of the data.",
            '<div class="table-wrap">' + rental_table(data.rows[:TABLE_ROWS]) + "</div>",
        ),
    ]
