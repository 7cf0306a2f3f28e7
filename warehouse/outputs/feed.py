"""The JSON Feed subscribers read: one item per ranking day, plus notable moves.

Item ids are derived from the day, the move and the model only, never from the time the
feed was written, so rerunning the pipeline for a day does not show subscribers the same
news twice.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterable
from datetime import date, timedelta
from html import escape
from typing import Any

import duckdb
from gpuvalue.models.text_safety import json_controls_escaped
from gpuvalue.models.buyer_view import BuyerView, hidden_because, shown_rows, without_flags
from gpuvalue.models.memory_class import MEMORY_CLASS_LABELS, memory_class
from gpuvalue.models.price_age import dated_price_basis
from gpuvalue.models.speed_evidence import evidence_label
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.export_files import ExportError, write_text_atomic
from gpuvalue.warehouse.source_dates import attribution_lines, normalize_source, replayed_days, sources_from_db

JSON_FEED_VERSION = "https://jsonfeed.org/version/1.1"
FEED_TITLE = "gpuvalue: GPU deep-learning training value"
TOP_IN_DAILY_ITEM = 10
PRICE_DROP_THRESHOLD = 0.10
# Week over week: compare with the newest price 7-13 days earlier, so a missed daily run
# does not hide a drop, and a month-old price is never called "last week".
WEEK_WINDOW = (timedelta(days=7), timedelta(days=13))
FEED_DAYS = 90  # items older than this many ranked days are dropped to keep the feed small


# --- formatting --------------------------------------------------------------------------


def format_usd(value: float) -> str:
    return f"${value:,.0f}"


def describe_price(row: dict[str, Any]) -> str:
    """Where a price comes from, in words: the number alone would overstate its certainty."""
    return dated_price_basis(row) + (", stale" if row.get("stale") else "")


def _day_start(day: date) -> str:
    return f"{day.isoformat()}T00:00:00Z"


# --- notable moves (pure) -----------------------------------------------------------------


def class_leaders(rows: Iterable[dict[str, Any]], view: BuyerView | None = None) -> dict[str, dict[str, Any]]:
    """The best-ranked card of each memory class on one day that a buyer could use, at a recent price.

    A card current frameworks cannot run, or one that needs a server (SXM), may rank
    high on price alone; announcing it as the best buy would be wrong. So would announcing an older
    price (a 2023 index average) as a new best value: it leads its class only among older prices.
    """
    view = view or BuyerView()
    leaders: dict[str, dict[str, Any]] = {}
    for row in sorted(rows, key=lambda r: r["rank"]):
        if hidden_because(row, view) is not None or row.get("price_tier") == "older":  # as `rank` shows
            continue
        label = memory_class(row.get("memory_gb"))
        if label is not None and label not in leaders:
            leaders[label] = row
    return leaders


def leader_changes(previous: list[dict[str, Any]], current: list[dict[str, Any]],
                   view: BuyerView | None = None) -> list[dict[str, Any]]:
    """Memory classes whose #1 differs from the previous ranked day's #1."""
    before = class_leaders(previous, view)
    after = class_leaders(current, view)
    changes = []
    for label in MEMORY_CLASS_LABELS:
        new = after.get(label)
        old = before.get(label)
        if new is None or (old is not None and old["model"] == new["model"]):
            continue
        changes.append({"memory_class": label, "new": new, "old": old})
    return changes


def price_drops(history: Iterable[dict[str, Any]], *, threshold: float = PRICE_DROP_THRESHOLD) -> list[dict[str, Any]]:
    """Days on which a model's price first fell by >= threshold against a week earlier.

    Only prices of the same kind are compared (a switch from launch to sold price is not
    a market move), and a drop is reported once, on the day it appears, not again on
    each following day that is still a week below.
    """
    by_model: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for point in history:
        if point.get("price_usd") and point["price_usd"] > 0:
            by_model[point["model"]].append(point)
    drops = []
    for model, points in sorted(by_model.items()):
        points.sort(key=lambda p: p["as_of"])
        was_down = False
        for index, point in enumerate(points):
            earliest = point["as_of"] - WEEK_WINDOW[1]
            latest = point["as_of"] - WEEK_WINDOW[0]
            base = None
            for candidate in reversed(points[:index]):
                if candidate["as_of"] < earliest:
                    break
                if candidate["as_of"] <= latest and candidate["price_kind"] == point["price_kind"]:
                    base = candidate
                    break
            change = None if base is None else point["price_usd"] / base["price_usd"] - 1.0
            is_down = change is not None and change <= -threshold + 1e-9  # 10% means 10%, despite float error
            if is_down and not was_down:
                drops.append({"model": model, "now": point, "before": base, "change": change})
            was_down = is_down
    return drops


# --- items (pure) -------------------------------------------------------------------------


def hidden_note(rows: list[dict[str, Any]], shown: list[dict[str, Any]], view: BuyerView) -> str | None:
    """Why the shown list skips cards of the full ranking: the cards ranked among or above the shown
    ones that the buyer's view hides (models/buyer_view.py), each with its reason and full rank."""
    if not shown:
        return None
    last = max(row["rank"] for row in shown)
    shown_models = {row["model"] for row in shown}
    hidden = sorted((r for r in rows if r["rank"] < last and r["model"] not in shown_models), key=lambda r: r["rank"])
    if not hidden:
        return None
    # A feed reader runs no command: the reason without the flag that would show the card.
    names = "; ".join(f"{r['model']} (#{r['rank']}, {without_flags(hidden_because(r, view) or 'not shown')})"
                      for r in hidden)
    count = f"{len(hidden)} card{'s' if len(hidden) != 1 else ''}"
    return (f"Not shown, and not counted in the numbers above: {count} of the full ranking: {names}. "
            "The full ranking (ranking.json) lists them.")


def daily_item(day: date, rows: list[dict[str, Any]], *, home_page_url: str | None = None,
               replay: bool = False, view: BuyerView | None = None) -> dict[str, Any]:
    # As `rank` shows by default (models/buyer_view.py), with the settings' memory minimum. Title,
    # text and HTML number them alike, by their place among the shown cards; the note says what was
    # left out of the full ranking.
    view = view or BuyerView()
    top = shown_rows(rows, view)[:TOP_IN_DAILY_ITEM]
    reference = top[0]["reference_gpu"] if top else "the reference GPU"
    lines = [
        f"{position}. {row['model']}: {format_usd(row['price_usd'])} ({describe_price(row)}), "
        f"{row['perf_per_dollar']:.2f} perf per $1k, perf {row['relative_perf']:.2f}x; {evidence_label(row)}"
        for position, row in enumerate(top, start=1)
    ]
    note = hidden_note(rows, top, view)
    replayed = " (a replay of recorded pages: prices as of their recordings)" if replay else ""
    text = (f"Top {len(top)} GPUs by training speed per dollar on {day.isoformat()}{replayed} "
            f"(perf relative to {reference}):\n")
    text += "\n".join(lines + ([note] if note else []))
    html_rows = "".join(
        f"<li><strong>{escape(row['model'])}</strong>: {escape(format_usd(row['price_usd']))} "
        f"({escape(describe_price(row))}), {row['perf_per_dollar']:.2f} perf per $1k, "
        f"perf {row['relative_perf']:.2f}&times;; {escape(evidence_label(row))}</li>"
        for row in top
    )
    html = (
        f"<p>Top {len(top)} GPUs by training speed per dollar on {day.isoformat()}{escape(replayed)}, "
        f"performance relative to {escape(reference)}.</p><ol>{html_rows}</ol>"
        + (f"<p>{escape(note)}</p>" if note else "")
    )
    leader = f": #1 {top[0]['model']}" if top else ""
    item = {
        "id": f"gpuvalue:ranking:{day.isoformat()}",
        "title": f"GPU value ranking for {day.isoformat()}{' (replay)' if replay else ''}{leader}",
        "content_text": text,
        "content_html": html,
        "date_published": _day_start(day),
        "tags": ["ranking"],
    }
    if home_page_url:
        item["url"] = home_page_url
    return item


def leader_item(day: date, change: dict[str, Any], previous_day: date | None = None) -> dict[str, Any]:
    new, old = change["new"], change["old"]
    label = change["memory_class"]
    # The previous ranking may be months before (a backfill, a paused schedule): it is named.
    before = f"on the previous ranking, of {previous_day.isoformat()}" if previous_day else "before"
    was = f", replacing {old['model']} ({before})" if old else f" (no card in this class {before})"
    text = (
        f"New best value among {label} cards on {day.isoformat()}: {new['model']} at "
        f"{format_usd(new['price_usd'])} ({describe_price(new)}), {new['perf_per_dollar']:.2f} perf per $1k{was}."
    )
    return {
        "id": f"gpuvalue:class-leader:{day.isoformat()}:{label}",
        "title": f"New #1 in {label}: {new['model']}",
        "content_text": text,
        "content_html": f"<p>{escape(text)}</p>",
        "date_published": _day_start(day),
        "tags": ["class-leader", label],
    }


def price_drop_item(drop: dict[str, Any]) -> dict[str, Any]:
    now, before = drop["now"], drop["before"]
    day = now["as_of"]
    percent = -drop["change"] * 100
    text = (
        f"{drop['model']} fell {percent:.0f}% in a week: {format_usd(now['price_usd'])} on {day.isoformat()} "
        f"against {format_usd(before['price_usd'])} on {before['as_of'].isoformat()} "
        f"({now['price_kind']} prices, {now.get('price_n') or 0} observations)."
    )
    return {
        "id": f"gpuvalue:price-drop:{day.isoformat()}:{drop['model']}",
        "title": f"{drop['model']} price down {percent:.0f}% week over week",
        "content_text": text,
        "content_html": f"<p>{escape(text)}</p>",
        "date_published": _day_start(day),
        "tags": ["price-drop"],
    }


def build_feed(
    days: dict[date, list[dict[str, Any]]],
    history: list[dict[str, Any]],
    *,
    home_page_url: str | None = None,
    feed_url: str | None = None,
    max_days: int = FEED_DAYS,
    replay: bool = False,
    sources: list[dict[str, Any]] | None = None,
    replay_days: set[date] | None = None,
    view: BuyerView | None = None,
) -> dict[str, Any]:
    """The whole feed from ranking days (day -> rows) and price history rows.

    ``replay``: the newest day was built from recorded pages, which the title and description say;
    ``replay_days``: every day built so, whose item says so (default: the newest, where ``replay``);
    ``view``: which cards a buyer is shown (default: as `rank` shows them);
    ``sources`` go into the feed's ``_gpuvalue`` extension with the date of their data (name, kind,
    status, as_of: what stays the same when the same day is built again)."""
    ordered = sorted(days)
    kept = set(ordered[-max_days:])
    items: list[dict[str, Any]] = []
    for index, day in enumerate(ordered):
        if day not in kept:
            continue
        replayed = day in replay_days if replay_days is not None else replay and day == ordered[-1]
        items.append(daily_item(day, days[day], home_page_url=home_page_url, replay=replayed, view=view))
        if index > 0:
            for change in leader_changes(days[ordered[index - 1]], days[day], view):
                items.append(leader_item(day, change, ordered[index - 1]))
    ranked_models = {row["model"] for rows in days.values() for row in rows}
    first_kept = min(kept) if kept else None
    for drop in price_drops(point for point in history if point["model"] in ranked_models):
        if first_kept is not None and drop["now"]["as_of"] >= first_kept:
            items.append(price_drop_item(drop))
    kind_order = {"ranking": 0, "class-leader": 1, "price-drop": 2}
    items.sort(key=lambda item: (item["date_published"], -kind_order[item["tags"][0]], item["id"]), reverse=True)
    description = ("Daily ranking of GPUs by deep-learning training speed per dollar, "
                   "new best-value cards per memory class, and week-over-week price drops.")
    if replay:
        description += (" Built offline from recorded pages (a replay): no page was fetched for the ranking day, "
                        "and every price is as old as its recording; each item gives its price dates.")
    extension: dict[str, Any] = {"replay": bool(replay)}
    if sources is not None:
        extension["sources"] = [{key: source.get(key) for key in ("name", "kind", "status", "as_of")}
                                for source in sources]
        # whose data the items are made of, with their licences (CC BY-SA material requires it)
        extension["attribution"] = attribution_lines(normalize_source(source) for source in sources)
    feed: dict[str, Any] = {
        "version": JSON_FEED_VERSION,
        "title": FEED_TITLE + (" (replay of recorded pages)" if replay else ""),
        "description": description,
        "language": "en",
        "items": items,
        "_gpuvalue": extension,
    }
    if home_page_url:
        feed["home_page_url"] = home_page_url
    if feed_url:
        feed["feed_url"] = feed_url
    return feed


# --- database and file ----------------------------------------------------------------------


def feed_inputs(con: duckdb.DuckDBPyConnection) -> tuple[dict[date, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Every ranked day's rows and the whole price history."""
    days: dict[date, list[dict[str, Any]]] = defaultdict(list)
    for row in sql_files.dicts(con, "feed_ranking_days"):
        days[row["as_of"]].append(row)
    return dict(days), sql_files.dicts(con, "feed_price_history")


def export_feed(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str],
    *,
    home_page_url: str | None = None,
    feed_url: str | None = None,
    replay: bool | None = None,
    view: BuyerView | None = None,
) -> int:
    """Write ``feed.json`` atomically; returns the number of items. ``replay`` defaults to what
    the runs table says of the newest ranked day; each day's item says what it says of that day."""
    days, history = feed_inputs(con)
    if not days:
        raise ExportError("nothing to export: ranking_daily is empty")
    kept = sorted(days)[-FEED_DAYS:]
    replay_days = replayed_days(con) & set(kept)
    if replay is not None:  # the caller knows the newest day's better (a run that has just ended)
        replay_days = (replay_days | {kept[-1]}) if replay else (replay_days - {kept[-1]})
    feed = build_feed(days, history, home_page_url=home_page_url, feed_url=feed_url,
                      replay=kept[-1] in replay_days, sources=sources_from_db(con), replay_days=replay_days,
                      view=view)
    feed = _with_rental_item(con, feed)
    write_text_atomic(path, json_controls_escaped(json.dumps(feed, indent=2, ensure_ascii=False, allow_nan=False)) + "\n")
    return len(feed["items"])


def _with_rental_item(con: duckdb.DuckDBPyConnection, feed: dict[str, Any]) -> dict[str, Any]:
    """The rental ranking's item, once the warehouse holds rental prices (gpuvalue.warehouse.outputs.rental_export)."""
    from gpuvalue.warehouse.outputs.rental_export import add_rental_item

    return add_rental_item(con, feed)
