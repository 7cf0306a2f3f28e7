"""The buyer's page: one self-contained ``index.html`` on which a buyer sets a budget, a memory floor,
a use case, a vendor, framework support, hours a week and an electricity price, and sees at once
recommend's three answers, the price-versus-speed frontier with them marked, their price histories
and rent or buy.

One logic, two faces: the run embeds the table of candidate setups ``recommend`` chooses from
(``models/budget_answers.py``, ``candidate_table``), computed once, and the page's script applies
to it the same few-line rule (``models/choose.py``; ``choose`` in ``page_assets/page.js``), so any
budget, memory floor, vendor or use case gives ``recommend --json``'s three answers. The inputs live
in the URL's query under the CLI's flag names (``?budget=600&min_memory=12``), so a shared link shows
the same answers; an input the page does not know is named on it. No
network: the CSS, the script and the charts (SVG, scaled by their viewBox on any screen) are inline.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, replace
from datetime import date, datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

import duckdb

from gpuvalue.models.answers import (
    BUDGETS, HOURS_PER_WEEK, MIN_MEMORIES, Inputs, memory_floor, page_table, rent_or_buy_for, rent_or_buy_json,
)
from gpuvalue.models.buyer_view import BuyerView, hidden_summary, shown_rows
from gpuvalue.models.speed_evidence import evidence_label
from gpuvalue.models.price_age import age_words, price_date_words, ranking_day_note
from gpuvalue.models.recommend import USE_CASES
from gpuvalue.models.rent_vs_buy import Assumptions
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.export_files import ExportError, prepare_export_dir, write_text_atomic
from gpuvalue.warehouse.outputs.page_charts import frontier_chart, history_chart
from gpuvalue.models.framework_support import card_caveat
from gpuvalue.models.finetune_memory import JS_SOURCE, METHODS
from gpuvalue.models.multi_gpu import DEFAULT_MULTI_GPU_EFFICIENCY
from gpuvalue.warehouse.recommend_inputs import candidate_rows, scaling_facts
from gpuvalue.warehouse.source_dates import attribution_lines, ranking_is_replay, sources_from_db

ASSETS = Path(__file__).parent / "page_assets"
TABLE_ROWS = 25
RENTAL_ROWS = 15
KWH_PRICES = (0.10, 0.15, 0.30, 0.45)


@dataclass(frozen=True)
class PageData:
    as_of: date
    reference_gpu: str
    shown: list[dict[str, Any]]  # the cards rank shows (legacy ones too, marked): chart and table
    answers: dict[str, Any]  # models.answers.page_table: the candidate setups and what the rule needs
    rent: dict[str, Any]  # the rent-or-buy answers, packed as the answers are
    history: dict[str, list[dict[str, Any]]]  # model -> its prices on their own dates
    rental: list[dict[str, Any]]
    sources: list[dict[str, Any]]
    generated_at: datetime
    replay: bool
    hidden: str | None
    assumptions: Assumptions
    defaults: dict[str, Any]
    table_rows: int = TABLE_ROWS


def _rent_grid(used: list[dict[str, Any]], rental: list[dict[str, Any]], assumptions: Assumptions,
               price_window_days: int, base_min_memory: float | None) -> dict[str, Any]:
    """Rent or buy for every budget, memory floor, use case, hours a week and electricity price the
    page offers, by the function ``recommend --hours-per-week`` uses; each distinct answer once."""
    kwh = sorted({*KWH_PRICES, assumptions.kwh_price_usd})
    dims: dict[str, list[Any]] = {"budget": list(BUDGETS), "min_memory": list(MIN_MEMORIES), "use_case": [None, *USE_CASES],
            "hours_per_week": list(HOURS_PER_WEEK), "kwh_price": kwh}
    answers: list[list] = []
    by_key: dict[tuple, int] = {}
    index: list[int] = []
    options: dict[str, int] = {}
    texts: dict[str, int] = {}

    def option(value: dict[str, Any] | None) -> int | None:
        return None if value is None else options.setdefault(json.dumps(value, sort_keys=True), len(options))

    def pack(found: dict[str, Any]) -> list:
        """[verdict, buy, rent, rent over budget (indexes into options), break-even h/week, assumptions and
        notes (indexes into texts)]"""
        return [found["verdict"], option(found["buy"]), option(found["rent"]), option(found["rent_over_budget"]),
                found["break_even_hours_per_week"], texts.setdefault(found["assumptions"], len(texts)),
                [texts.setdefault(n, len(texts)) for n in found["notes"]]]

    if not rental:
        return {"dims": dims, "answers": [], "index": [], "options": [], "texts": []}
    for budget in BUDGETS:
        for min_memory in MIN_MEMORIES:
            for use_case in dims["use_case"]:
                floor = memory_floor(min_memory, use_case, base_min_memory)
                for hours in HOURS_PER_WEEK:
                    for price in kwh:
                        key = (budget, floor, hours, price)
                        if key not in by_key:
                            found = rent_or_buy_for(
                                used, rental, budget=float(budget), min_memory=floor, price_window_days=price_window_days,
                                assumptions=replace(assumptions, kwh_price_usd=price, hours_per_week=float(hours)))
                            answers.append(pack(rent_or_buy_json(found)))
                            by_key[key] = len(answers) - 1
                        index.append(by_key[key])
    return {"dims": dims, "answers": answers, "index": index,
            "options": [json.loads(o) for o in sorted(options, key=options.__getitem__)],
            "texts": sorted(texts, key=texts.__getitem__)}


def page_data(con: duckdb.DuckDBPyConnection, *, view: BuyerView | None = None, assumptions: Assumptions | None = None,
              price_window_days: int = 30, generated_at: datetime | None = None, table_rows: int = TABLE_ROWS,
              multi_gpu_efficiency: float = DEFAULT_MULTI_GPU_EFFICIENCY, **answer_settings: Any) -> PageData:
    """What the page shows. ``answer_settings``: recommend's settings beyond the inputs the page offers
    (``workstation_gpus``, ``platform_cost_usd``, ``extra_gpu_cost_usd``, ``ownership_months``), so its
    answers are ``recommend --json``'s for the same inputs."""
    from gpuvalue.warehouse.rental import rent_ranking_rows

    view = view or BuyerView()
    assumptions = assumptions or Assumptions()
    every = candidate_rows(con)
    if not every:
        raise ExportError("nothing to show: the ranking is empty (`gpuvalue run` ranks today)")
    shown = shown_rows(every, replace(view, include_legacy=True))  # legacy cards too: an answer may be one
    if not shown:
        raise ExportError(f"nothing to show: none of the {len(every)} cards ranked on {every[0]['as_of']} passes the "
                          "default filter of `gpuvalue rank`; `gpuvalue rank --all` lists them")
    facts = scaling_facts(con, every[0].get("perf_precision"), multi_gpu_efficiency)
    answers = page_table(every, scaling=facts, view=view, base_min_memory=view.min_memory_gb, **answer_settings)
    sources = sources_from_db(con)
    # An own price is a median or quartile of the listings the run read: they are its source.
    listings = ", ".join(s["name"] for s in sources if s.get("kind") == "listings" and s.get("status") == "ok")
    for card in answers["table"]:
        if not card.get("price_source") and card.get("price_kind") != "index":
            card["price_source"] = f"listings: {listings}" if listings else "own listings"
    rental = rent_ranking_rows(con)
    rent = _rent_grid(every, rental, assumptions, price_window_days, view.min_memory_gb)
    wanted = {card["model"] for card in answers["table"]}
    history: dict[str, list[dict[str, Any]]] = {}
    for point in sql_files.dicts(con, "report_price_history"):
        if point["model"] in wanted:
            history.setdefault(point["model"], []).append(point)
    return PageData(
        as_of=every[0]["as_of"], reference_gpu=every[0]["reference_gpu"], shown=shown, answers=answers, rent=rent,
        history=history, rental=rental[:RENTAL_ROWS], sources=sources,
        generated_at=generated_at or datetime.now(timezone.utc), replay=ranking_is_replay(con, every[0]["as_of"]),
        hidden=hidden_summary(every, view), assumptions=assumptions,
        defaults={"min_memory_gb": view.min_memory_gb, "hours_per_week": assumptions.hours_per_week,
                  "kwh_price": assumptions.kwh_price_usd},
        table_rows=table_rows,
    )


# --- rendering -------------------------------------------------------------------------------


def _option(value: Any, label: str) -> str:
    shown = "" if value is None else (f"{value:g}" if isinstance(value, float) else str(value))
    return f'<option value="{escape(shown)}">{escape(label)}</option>'


def _select(name: str, label: str, options: list[tuple[Any, str]]) -> str:
    return (f'<label class="field"><span>{escape(label)}</span><select name="{name}" id="in-{name}">'
            + "".join(_option(v, text) for v, text in options) + "</select></label>")


def _number(name: str, label: str, value: str, placeholder: str, step: str) -> str:
    return (f'<label class="field"><span>{escape(label)}</span><input type="number" name="{name}" id="in-{name}" '
            f'min="0" step="{step}" value="{escape(value)}" placeholder="{escape(placeholder)}"></label>')


def _text(name: str, label: str, placeholder: str) -> str:
    return (f'<label class="field"><span>{escape(label)}</span><input type="text" name="{name}" id="in-{name}" '
            f'value="" placeholder="{escape(placeholder)}" size="6"></label>')


def inputs_form(data: PageData) -> str:
    """The inputs, named as recommend's flags; the script reads them from and writes them to the URL."""
    default_floor = data.defaults["min_memory_gb"]
    fields = [
        _number("budget", "Budget, USD", "600", "600", "any"),
        _number("min_memory", "Memory at least, GB", "",
                f"{default_floor:g} (default)" if default_floor is not None else "any", "any"),
        _select("use_case", "Use case", [(None, "any"), *[(u, u) for u in USE_CASES]]),
        _select("vendor", "Vendor", [(None, "any"), *[(v, v) for v in data.answers["vendors"]]]),
        _text("model_params", "Model to fine-tune, parameters", "e.g. 8B"),
        _select("method", "Fine-tuning method", [(None, "none"), *[(m, m) for m in METHODS]]),
        _select("include_legacy", "Framework support", [(None, "default PyTorch wheels"),
                                                        (1, "also legacy builds (CUDA 12.6)")]),
        _select("hours_per_week", "Training hours a week", [(h, f"{h:g} h") for h in data.rent["dims"]["hours_per_week"]]),
        _select("kwh_price", "Electricity, $/kWh", [(k, f"${k:g}") for k in data.rent["dims"]["kwh_price"]]),
    ]
    return ('<form id="inputs" class="inputs" method="get" action="">' + "".join(fields)
            + '<noscript><button type="submit">Show</button> (the answers need JavaScript)</noscript></form>')


ANSWER_TITLES = {"fastest": "Fastest within budget", "best_value": "Best value", "cheapest": "Cheapest that fits"}


def answer_slots() -> str:
    """Empty answer cards the script fills (model, deciding number, price with date and source)."""
    return '<div class="answers">' + "".join(
        f'<article class="answer" data-answer="{name}" data-model=""><h3>{title}</h3>'
        '<p class="model"></p><p class="decides"></p><p class="price"></p><p class="left"></p>'
        '<ul class="caveats"></ul><p class="reason small"></p></article>' for name, title in ANSWER_TITLES.items()) + "</div>"


def _price_cell(row: dict[str, Any]) -> str:
    age = row.get("price_age_days")
    older = row.get("price_tier") == "older"
    mark = (" older" if older else "") + (" stale" if row.get("stale") else "")
    source = row.get("price_source_label") or row.get("price_source") or ("" if row.get("price_kind") == "index" else "own listings")
    return (f'<td class="price{mark}">${row["price_usd"]:,.0f} <span class="small">{escape(row.get("price_kind") or "")}, '
            f"{escape(price_date_words(row))}" + (f", {escape(age_words(age))} old" if age is not None else "")
            + (", stale" if row.get("stale") else "") + (f" · {escape(source)}" if source else "") + "</span></td>")


def ranking_table(rows: list[dict[str, Any]]) -> str:
    """Every card rank shows, each row carrying what the filters read (memory, vendor, builds): the script
    shows the first rows that pass the page's inputs, so the table follows them."""
    body = "".join(
        f'<tr data-model="{escape(r["model"])}" data-memory="{r["memory_gb"]:g}" '
        f'data-vendor="{escape(str(r.get("vendor") or ""))}" '
        f'data-legacy="{1 if r.get("framework_support") == "legacy" else 0}"><td class="num">{r.get("rank_shown", r["rank"])}</td>'
        f'<td>{escape(r["model"])}<span class="small"> {r["memory_gb"]:g} GB'
        + (" · legacy builds only" if r.get("framework_support") == "legacy" else "") + "</span>"
        # Not CUDA: what the buyer gives up, in the card's own cell.
        + (f'<br><span class="small stack">{escape(caveat)}</span>' if (caveat := card_caveat(r)) else "") + "</td>"
        + _price_cell(r)
        + f'<td class="num">{r["relative_perf"]:.2f}x<span class="small"> {escape(evidence_label(r))}</span></td>'
        f'<td class="num"><strong>{r["perf_per_dollar"]:.2f}</strong></td></tr>'
        for r in rows)
    return ('<table class="ranking"><thead><tr><th>#</th><th>card</th><th>price, as of, source</th><th>speed</th>'
            f"<th>per $1k</th></tr></thead><tbody>{body}</tbody></table>")


def rental_table(rows: list[dict[str, Any]], today: date) -> str:
    """Cloud prices with each price's date and its age today, older and stale ones marked."""
    if not rows:
        return '<p class="small">No rental prices in the warehouse yet.</p>'

    def age(row: dict[str, Any]) -> str:
        day = row.get("price_as_of")
        return age_words((today - day).days) if isinstance(day, date) else "-"

    body = "".join(
        f'<tr class="{"older" if r.get("price_tier") == "older" else ""}"><td>{escape(r["model"])}</td>'
        f'<td class="num">${r["usd_per_gpu_hour"]:.3f}<span class="small"> {escape(str(r.get("provider") or ""))}</span></td>'
        f'<td class="num">{r["perf_per_usd_hour"]:.2f}</td>'
        f'<td>{escape(str(r.get("price_as_of") or "-"))}<span class="small"> {escape(age(r))} old</span></td></tr>'
        for r in rows)
    return ('<table class="rental"><thead><tr><th>card</th><th>$/GPU-hour</th><th>speed per $/h</th>'
            f"<th>price as of, age</th></tr></thead><tbody>{body}</tbody></table>")


def sources_footer(data: PageData) -> str:
    items = "".join(
        f"<li><strong>{escape(s['name'])}</strong> ({escape(s.get('kind') or '')}): {escape(s.get('status') or '')}, "
        f"data of {escape(str(s.get('as_of') or 'unknown date'))}</li>" for s in data.sources)
    credits = "".join(f"<li>{escape(line)}</li>" for line in attribution_lines(data.sources))
    return (f'<footer><h2>Sources and freshness</h2><ul class="small">{items}</ul>'
            f'<h3>Credits</h3><ul class="small">{credits}</ul>'
            f'<p class="small">Written {data.generated_at.astimezone(timezone.utc):%Y-%m-%d %H:%M} UTC from the ranking of '
            f"{data.as_of.isoformat()} by gpuvalue.</p></footer>")


def _embedded(data: PageData) -> str:
    payload = {
        "as_of": data.as_of.isoformat(), "reference_gpu": data.reference_gpu, "answers": data.answers,
        "rent": data.rent, "defaults": data.defaults,
    }
    text = json.dumps(payload, separators=(",", ":"), default=str, allow_nan=False)
    return text.replace("</", "<\\/")


def render_page(data: PageData) -> str:
    """The whole page as a string: pure, so it can be checked without a browser."""
    css = (ASSETS / "page.css").read_text(encoding="utf-8")
    # recommend's fine-tuning memory rule in JavaScript (--model-params/--method), built from the same constants.
    script = JS_SOURCE + (ASSETS / "page.js").read_text(encoding="utf-8")
    today = data.generated_at.astimezone(timezone.utc).date()
    banners = []
    if data.replay:
        banners.append(f"<strong>Replay:</strong> built offline from recorded pages; nothing was fetched for "
                       f"{data.as_of.isoformat()}. Every price is as old as its recording: see each price's date.")
    if note := ranking_day_note(data.as_of, today):
        banners.append(escape(note))
    histories = "".join(f'<figure class="history-of" data-model="{escape(m)}" hidden><figcaption>{escape(m)}</figcaption>'
                        f"{history_chart(m, points)}</figure>" for m, points in sorted(data.history.items()))
    reference = escape(data.reference_gpu)
    sections = [
        ("answers", "What to buy", f'<p class="why" hidden></p>{answer_slots()}<p class="notes small"></p>'),
        ("frontier-section", "Price against speed",
         f'<p class="sub small">Each dot a card the ranking shows; the line joins the cards no cheaper card beats on '
         f"speed (recently priced ones); hollow grey dots are older prices. The answers are marked. Speed is relative "
         f"to the {reference}.</p>{frontier_chart(data.shown, data.reference_gpu)}"),
        ("history", "Price history of the answers",
         '<p class="sub small">Each price on its own date; a line joins two prices only when they are close in time, '
         f'so a gap is a gap. Squares are asking prices, dots sold or index prices.</p><div class="histories">{histories}</div>'),
        ("rent", "Rent or buy", '<div class="rent-answer"></div>'),
        ("ranking", f"Ranking of {data.as_of.isoformat()}",
         '<p class="sub small">Speed per $1,000; a faded row is an older or stale price, its age beside it.</p>'
         f'<div class="table-wrap" data-rows="{data.table_rows}">{ranking_table(data.shown)}</div>'
         '<p class="small ranking-filter"></p>'
         + (f'<p class="small">{escape(data.hidden)}.</p>' if data.hidden else "")),
        ("rental", "Cloud prices",
         f'<p class="sub small">Each provider\'s newest published price and its age today ({today.isoformat()}).</p>'
         f'<div class="table-wrap">{rental_table(data.rental, today)}</div>'),
    ]
    body = "".join(f'<section class="card" id="{sid}"><h2>{escape(title)}</h2>{content}</section>'
                   for sid, title, content in sections)
    return (
        "<!DOCTYPE html>\n<html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f"<title>Which GPU for deep learning: answers of {data.as_of.isoformat()}</title>"
        f"<style>{css}</style></head><body><main>"
        f"<header><h1>Which GPU for deep learning?</h1><p>Training speed per dollar, from the ranking of "
        f"{data.as_of.isoformat()}; speed relative to the {reference}.</p>"
        + "".join(f'<p class="banner">{b}</p>' for b in banners)
        + f"</header>{inputs_form(data)}{body}{sources_footer(data)}</main>"
        f'<script type="application/json" id="page-data">{_embedded(data)}</script>'
        f"<script>{script}</script></body></html>\n"
    )


def write_page(con: duckdb.DuckDBPyConnection, out: str | os.PathLike[str], **options: Any) -> Path:
    """Write ``index.html`` into ``out`` (created if missing), or to ``out`` itself when it names an
    ``.html`` file; ``options`` are ``page_data``'s."""
    target = Path(out)
    if target.suffix.lower() in (".html", ".htm") and not target.is_dir():
        path = prepare_export_dir(target.parent) / target.name
    else:
        path = prepare_export_dir(target) / "index.html"
    return write_text_atomic(path, render_page(page_data(con, **options)))


__all__ = ["Inputs", "PageData", "page_data", "render_page", "write_page"]
