"""How old a ranked price is, and how every output names it.

The ranking orders cards by speed per dollar only among prices of comparable dates: a card priced
within ``DEFAULT_COMPARABLE_DAYS`` of the day's newest price is ``recent``; older prices rank after
all recent ones, among themselves (``warehouse/models/marts/ranking_daily.sql``). Prices are never aged by a
trend: the one published trend (the monthly eBay index) ends in 2023, so any adjustment beyond it
would be invented.

A price of kind ``index`` is a published monthly average of sold cards (a price-index source, such
as Tom's Hardware's eBay index), used only for a card the own observations cannot price; every label
says so, with its month and the index's name, so it is never read as an own median.

Pure: rows in (dicts with ``ranking_daily`` columns, plus ``price_source_label``: the short name
the index's source declares, which the ranking's read queries join from the ``sources`` table), words out.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

DEFAULT_COMPARABLE_DAYS = 90  # a quarter: used-GPU prices move a few percent in that time


def age_words(days: int | None) -> str:
    """``12 d``, ``5 mo``, ``2 y 1 mo``: short enough for a table column."""
    if days is None:
        return "-"
    if days < 0:
        return "future"
    if days < 60:
        return f"{days} d"
    months = round(days / 30.44)
    if months < 24:
        return f"{months} mo"
    years, rest = divmod(months, 12)
    return f"{years} y" + (f" {rest} mo" if rest else "")


def ranking_day_note(day: date, today: date) -> str | None:
    """What a reader of the latest ranking must know when it is not of today: the ages and the
    'stale' marks are counted on the ranking's day, so a year-old ranking reads as fresh without it
    (a backfill, a schedule that stopped). A ranking of today or yesterday needs no note."""
    days = (today - day).days
    if days <= 1:
        return None
    return (f"Note: this ranking is of {day.isoformat()}, {age_words(days)} before today ({today.isoformat()}); "
            f"its prices' ages and 'stale' are counted on {day.isoformat()}. `gpuvalue run` ranks today.")


def index_month(row: Mapping[str, Any]) -> str:
    dated = row.get("price_as_of")
    return dated.strftime("%Y-%m") if isinstance(dated, date) else str(dated or "?")[:7]


def index_name(row: Mapping[str, Any]) -> str:
    """The index a price came from, as its source names itself (its registry name where it declares
    no label, or where the warehouse has not recorded one yet)."""
    return row.get("price_source_label") or row.get("price_source") or "a published index"


def is_index_price(row: Mapping[str, Any]) -> bool:
    return row.get("price_kind") == "index"


def index_price_words(row: Mapping[str, Any]) -> str:
    """``index price of 2023-10 (Tom's Hardware eBay index, average of 765 sold)``; an index of asking
    prices in its source's words: ``index price of 2026-09 (GPU Poet market report, mean of the 3
    cheapest asking prices)`` (``price_source_statistic``, the sources table's ``statistic``)."""
    n = row.get("price_n")
    statistic = row.get("price_source_statistic")
    if statistic and n:
        count = ", " + str(statistic).replace("{n}", str(n))
    else:
        count = f", average of {n} sold" if n else ", monthly average of sold cards"
    return f"index price of {index_month(row)} ({index_name(row)}{count})"


def index_legend(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """The line under a shown ranking that says what its index prices are, each index with its statistic
    (an index of sold cards, or of asking prices such as a monthly report's best deal); None without any."""
    named: dict[str, str] = {}
    for row in rows:
        if is_index_price(row):
            statistic = row.get("price_source_statistic")
            named[index_name(row)] = (str(statistic).replace("{n}", str(row.get("price_n") or "the"))
                                      if statistic else "monthly average of sold cards")
    if not named:
        return None
    said = "; ".join(f"{name}: {what}" for name, what in sorted(named.items()))
    return ("index: no own listing of a comparable date prices the card, so the price is a published monthly "
            f"figure for the month shown ({said}), never mixed with own prices.")


def price_basis(row: Mapping[str, Any]) -> str:
    """What a ranked price is, in the words every output uses: ``median of 12 sold``, ``lower quartile
    of 23 asking``, ``launch price``, or an index price's own words (with its month and source)."""
    kind, n = row.get("price_kind"), row.get("price_n") or 0
    if kind == "index":
        return index_price_words(row)
    if kind == "launch":
        return "launch price"
    if kind == "sold":
        return f"median of {n} sold"
    if kind == "asking":
        return f"lower quartile of {n} asking"
    return str(kind)


def price_date_words(row: Mapping[str, Any]) -> str:
    """A price's date as a table shows it: an index price is a month's average ("2023-10 (month)"),
    never one day's price."""
    if is_index_price(row):
        return f"{index_month(row)} (month)"
    dated = row.get("price_as_of")
    return dated.isoformat() if isinstance(dated, date) else "-"


def dated_price_basis(row: Mapping[str, Any]) -> str:
    """``price_basis`` with the price's date (``median of 12 sold, 2026-11-20``); an index price's words
    carry its month already."""
    dated = row.get("price_as_of")
    if is_index_price(row) or not isinstance(dated, date):
        return price_basis(row)
    return f"{price_basis(row)}, {dated.isoformat()}"


def split_tiers(rows: Sequence[Mapping[str, Any]], key: str = "price_tier") -> list[tuple[str, list[Mapping[str, Any]]]]:
    """The rows of a shown ranking as its tables: ('recent', rows) then ('older', rows), each only
    where it has rows (``key``: the tier column, ``spot_tier`` for the spot rental ranking)."""
    tiers = [("recent", [r for r in rows if r.get(key) != "older"]), ("older", [r for r in rows if r.get(key) == "older"])]
    return [(tier, part) for tier, part in tiers if part]


def tier_title(tier: str, rows: list[Mapping[str, Any]], comparable_days: int | None = None,
               date_key: str = "price_as_of") -> str:
    """The heading over one tier of a shown ranking, with the dates it spans."""
    dates = sorted(r[date_key] for r in rows if isinstance(r.get(date_key), date))
    if not dates:
        span = "no dates"
    elif dates[0] == dates[-1]:
        span = f"all on {dates[0].isoformat()}"
    else:
        span = f"{dates[0].isoformat()} to {dates[-1].isoformat()}"
    if tier == "recent":
        window = f"{comparable_days} days" if comparable_days else "the comparable window"
        return f"Priced within {window} of the newest price ({span})"
    return f"Older prices ({span}): ranked after the recent ones, compared only with each other"


def tiers_note(rows: list[Mapping[str, Any]]) -> str | None:
    """One line saying that the ranking shows prices of two ages apart, when it does."""
    older = [r for r in rows if r.get("price_tier") == "older"]
    if not older:
        return None
    ages = [r["price_age_days"] for r in older if r.get("price_age_days") is not None]
    oldest = f", up to {age_words(max(ages))} old" if ages else ""
    return (f"{len(older)} card(s) have older prices{oldest}: they rank after every recently priced card and are "
            "compared only with each other; 'age' says how old each price is.")
