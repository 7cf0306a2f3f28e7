"""What the default outputs show: cards a deep-learning buyer can use, unless asked for more.

The ranking (``ranking_daily``) keeps every priced card; ``rank``, ``recommend``, the report and the
feed show a view of it. By default a card is shown when

* the default PyTorch wheels run it (``framework_support = 'current'``); a card only the legacy
  CUDA 12.6 wheels carry is shown with ``include_legacy`` (``--include-legacy``), noted
  "legacy PyTorch builds only"; a card no wheel runs, or whose support is unknown, only with
  ``include_unsupported`` (``--all``);
* it has at least ``min_memory_gb`` (6 GB; ``GPUVALUE_MIN_MEMORY_GB``, ``--min-memory``);
* a desktop can take it: an SXM/OAM module or a laptop or integrated part only with
  ``include_modules``, and a passive PCIe server card, which fits the slot but needs a fan kit,
  only with ``include_passive`` (then noted "passive: needs a fan kit").

A shown card's ``rank_shown`` is its position among the shown cards; ``rank`` stays its place in
the full ranking. Pure: rows in (dicts with ``ranking_daily`` columns), rows out.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from gpuvalue.models.framework_support import stack_legend, stack_mark
from gpuvalue.models.support_tables import support_level

DEFAULT_MIN_MEMORY_GB = 6.0

LEGACY_NOTE = "legacy PyTorch builds only"
PASSIVE_NOTE = "passive: needs a fan kit"
NOT_DESKTOP_NOTE = "not a desktop card: an SXM/OAM module, laptop or integrated part"


@dataclass(frozen=True)
class BuyerView:
    min_memory_gb: float | None = DEFAULT_MIN_MEMORY_GB
    include_legacy: bool = False
    include_passive: bool = False
    include_modules: bool = False
    include_unsupported: bool = False

    @classmethod
    def everything(cls) -> BuyerView:
        """The full ranking, nothing hidden."""
        return cls(min_memory_gb=None, include_legacy=True, include_passive=True, include_modules=True,
                   include_unsupported=True)


def is_passive(row: Mapping[str, Any]) -> bool:
    if row.get("passive") is not None:
        return bool(row["passive"])
    return row.get("form_factor") == "PCIe passive"


def hidden_because(row: Mapping[str, Any], view: BuyerView) -> str | None:
    """Why the view hides the row (the flag that shows it in brackets), or None when it is shown."""
    level = support_level(row)
    if level == "legacy" and not view.include_legacy:
        return "legacy PyTorch builds only (--include-legacy)"
    if level not in ("current", "legacy") and not view.include_unsupported:
        return "no PyTorch build runs it (--all)" if level == "none" else "PyTorch support unknown (--all)"
    if is_not_desktop(row) and not view.include_modules:
        return "not a desktop card: module, laptop or integrated (--include-modules)"
    if is_passive(row) and not view.include_passive:
        return "passive: needs a fan kit (--include-passive)"
    if view.min_memory_gb is not None:
        memory = row.get("memory_gb")
        if memory is None or memory < view.min_memory_gb - 1e-9:
            return f"under {view.min_memory_gb:g} GB (--min-memory)"
    return None


def shown_rows(rows: Iterable[Mapping[str, Any]], view: BuyerView) -> list[dict[str, Any]]:
    """The rows the view shows, in ranking order, each with ``rank_shown`` (1, 2, ...)."""
    kept = [dict(r) for r in sorted(rows, key=lambda r: (r["rank"], r["model"])) if hidden_because(r, view) is None]
    for position, row in enumerate(kept, start=1):
        row["rank_shown"] = position
    return kept


def hidden_summary(rows: Iterable[Mapping[str, Any]], view: BuyerView, *,
                   unavailable: Collection[str] = ()) -> str | None:
    """One line: how many ranked cards the view hides, by reason (the flags that show them).

    ``unavailable``: flags the command showing the line does not have (`recommend` has no ``--all``:
    it never offers a card no PyTorch build runs), so the line never suggests them."""
    reasons: Counter[str] = Counter()
    needing_more: Counter[str] = Counter()  # a card is counted under its first reason; its flag alone may not show it
    for row in rows:
        why = hidden_because(row, view)
        if why is None:
            continue
        shown_as = without_flags(why, unavailable)
        reasons[shown_as] += 1
        if hidden_because(row, _with_flag_of(why, view)) is not None:
            needing_more[shown_as] += 1
    if not reasons:
        return None
    parts = ", ".join(_with_more(f"{n} {why}", needing_more[why])
                      for why, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"hidden: {sum(reasons.values())} ranked card(s): {parts}"


def _with_flag_of(reason: str, view: BuyerView) -> BuyerView:
    """The view with the flag a reason names turned on (--all: everything)."""
    if reason.endswith("(--all)"):
        return BuyerView.everything()
    lifted: dict[str, dict[str, Any]] = {"(--include-legacy)": {"include_legacy": True}, "(--include-modules)": {"include_modules": True},
              "(--include-passive)": {"include_passive": True}, "(--min-memory)": {"min_memory_gb": None}}
    for flag, change in lifted.items():
        if reason.endswith(flag):
            return replace(view, **change)
    return view


def _with_more(part: str, more: int) -> str:
    """``12 legacy ... (--include-legacy)`` with how many of them that flag alone does not show."""
    if not more:
        return part
    note = f"{more} of them need another flag too"
    return f"{part[:-1]}; {note})" if part.endswith(")") else f"{part} ({note})"


def row_notes(row: Mapping[str, Any]) -> list[str]:
    """What a shown row must say about itself beyond its numbers."""
    notes = []
    if support_level(row) == "legacy":
        notes.append(LEGACY_NOTE)
    if is_passive(row):
        notes.append(PASSIVE_NOTE)
    if is_not_desktop(row):
        notes.append(NOT_DESKTOP_NOTE)
    return notes


def is_not_desktop(row: Mapping[str, Any]) -> bool:
    """A part a desktop's PCIe slot cannot take: shown only with --include-modules, and then marked."""
    return row.get("desktop_usable") is False


def left_out_summary(rows: Iterable[Mapping[str, Any]], view: BuyerView) -> str | None:
    """The hidden-cards line as `recommend` (and its rent-or-buy answer) says it: "left out ...", never
    suggesting ``--all``, which it lacks (it never offers a card no PyTorch build runs)."""
    hidden = hidden_summary(rows, view, unavailable=("--all",))
    return hidden.replace("hidden:", "left out", 1) if hidden else None


def without_flags(reason: str, flags: Collection[str] | None = None) -> str:
    """A hidden card's reason without the named flags' hints, or without any (``None``: for a reader
    who runs no command, such as the feed's)."""
    if flags is None:
        return re.sub(r" \(--[a-z-]+\)$", "", reason)
    for flag in flags:
        reason = reason.replace(f" ({flag})", "")
    return reason


def support_mark(row: Mapping[str, Any]) -> str:
    """The mark a table puts after a card's name: legacy builds only, or no build at all; a card a
    build runs that does not train on CUDA gets its stack's mark (``framework_support.stack_mark``)."""
    level = support_level(row)
    if level == "current":
        return stack_mark(row)
    return " \u2020" if level == "legacy" else " \u2021"


def support_legend(rows: Iterable[Mapping[str, Any]]) -> list[str]:
    """The lines that explain the marks ``support_mark`` put in a table of ``rows``."""
    rows = list(rows)
    levels = {support_level(row) for row in rows}
    lines = stack_legend(r for r in rows if support_level(r) == "current")
    if "legacy" in levels:
        lines.append("\u2020 legacy PyTorch builds only (the CUDA 12.6 wheels; PyTorch 2.15 plans to drop them).")
    if levels - {"current", "legacy"}:
        lines.append("\u2021 no PyTorch build of the newest release runs this card, or its support is unknown.")
    return lines
