"""The three answers a buyer asks for, from one set of inputs: the fastest card, the best value and
the cheapest, each within the budget. ``recommend --json`` prints them and the buyer's page looks
them up, so the terminal and the page never disagree: both call ``answers_for``.

Pure: ranking rows in (``ranking_daily`` columns), plain JSON-ready dicts out. The picks come from
``models/recommend.py``; this module only names three of them and says where each number comes from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from datetime import date, timedelta
from typing import Any

from gpuvalue.models.buyer_view import BuyerView, hidden_because, left_out_summary
from gpuvalue.models.price_age import age_words, tiers_note
from gpuvalue.models.recommend import USE_CASES, Pick, recommend
from gpuvalue.models.rent_vs_buy import Assumptions, RentOrBuy, rent_or_buy

ANSWERS = ("fastest", "best_value", "cheapest")
VENDORS = ("NVIDIA", "AMD", "Intel")


@dataclass(frozen=True)
class Inputs:
    """What a buyer sets, named as ``recommend``'s flags (and the page's URL query)."""

    budget: float
    min_memory: float | None = None  # None: the view's minimum (GPUVALUE_MIN_MEMORY_GB)
    use_case: str | None = None
    vendor: str | None = None
    include_legacy: bool = False
    hours_per_week: float | None = None  # rent or buy, with kwh_price
    kwh_price: float | None = None

    def query(self) -> dict[str, str]:
        """The inputs as the page's URL query holds them (unset ones left out)."""
        out = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value is False:
                continue
            out[f.name] = "1" if value is True else (f"{value:g}" if isinstance(value, float) else str(value))
        return out

    def flags(self) -> list[str]:
        """The same inputs as ``gpuvalue recommend`` arguments."""
        out = []
        for name, value in self.query().items():
            flag = "--" + name.replace("_", "-")
            out.extend([flag] if name == "include_legacy" else [flag, value])
        return out


def _entry(pick: Pick, row: Mapping[str, Any], budget: float, assumptions: list[str]) -> dict[str, Any]:
    """One answer: the card, what it costs and buys, and where each number comes from."""
    dated = pick.price_as_of
    return {
        "model": pick.model,
        "gpus": pick.gpus,
        "cost_usd": round(pick.cost_usd, 2),
        "throughput": round(pick.throughput, 4),
        "money_left_usd": round(budget - pick.cost_usd, 2),
        "assumptions": list(assumptions),
        "perf_per_1k_usd": round(pick.value, 4),
        "memory_gb": pick.memory_gb,
        "price_usd": round(pick.price_usd, 2),
        "price_kind": pick.price_kind,
        "price_n": pick.price_n,
        "price_as_of": dated.isoformat() if isinstance(dated, date) else dated,
        "price_age_days": pick.price_age_days,
        "price_age": age_words(pick.price_age_days) if pick.price_age_days is not None else None,
        "price_tier": pick.price_tier,
        "stale": pick.stale,
        "price_source": row.get("price_source_label") or row.get("price_source"),
        "perf_source": row.get("perf_source"),
        "perf_precision": row.get("perf_precision"),
        "confidence": pick.confidence,
        "reason": pick.reason,
    }


def answers_for(rows: list[Mapping[str, Any]], inputs: Inputs, *, scaling: dict | None = None,
                view: BuyerView | None = None) -> dict[str, Any]:
    """The fastest, best-value and cheapest card within ``inputs.budget``, by recommend's rules.

    Recommend orders the affordable cards recently priced first, then by value; the best value is its
    first pick, and the fastest and the cheapest are chosen among the cards of that pick's price tier
    (an older price is compared only with older prices, as the ranking does). Where nothing fits,
    each answer is None and ``why`` says so."""
    view = replace(view or BuyerView(), include_legacy=inputs.include_legacy)
    if inputs.vendor:
        wanted = inputs.vendor.casefold()
        rows = [r for r in rows if str(r.get("vendor") or "").casefold() == wanted]
    rec = recommend(list(rows), budget_usd=inputs.budget, min_memory_gb=inputs.min_memory, use_case=inputs.use_case,
                    scaling=scaling, view=view, top=max(len(rows), 1))
    by_model = {r["model"]: r for r in rows}
    out: dict[str, Any] = {"inputs": inputs.query(), "min_memory_gb": rec.min_memory_gb,
                           "assumptions": list(rec.assumptions), "why": None}
    if not rec.picks:
        out.update({name: None for name in ANSWERS})
        out["why"] = rec.message or "No ranked card fits these inputs."
        return out
    best = rec.picks[0]
    tier = [p for p in rec.picks if p.price_tier == best.price_tier]
    fastest = max(tier, key=lambda p: (p.throughput, p.value, p.model))
    cheapest = min(tier, key=lambda p: (p.cost_usd, -p.value, p.model))
    chosen = (("fastest", fastest), ("best_value", best), ("cheapest", cheapest))
    # Recommend's note on older prices counts every affordable card here (all were asked for); the
    # answers' note counts the three answers, as recommend's counts its picks.
    every = _older_note(rec.picks)
    assumptions = [a for a in rec.assumptions if a != every]
    if (three := _older_note(list({p.model: p for _, p in chosen}.values()))) is not None:
        assumptions.append(three)
    out["assumptions"] = assumptions
    for name, pick in chosen:
        out[name] = _entry(pick, by_model[pick.model], inputs.budget, assumptions)
    return out


def _older_note(picks: list[Pick]) -> str | None:
    """Recommend's note on picks with older prices (models/recommend.py words it so)."""
    note = tiers_note([{"price_tier": p.price_tier, "price_age_days": p.price_age_days} for p in picks])
    return note.replace("card(s)", "pick(s)", 1) if note else None


def memory_floor(min_memory: float | None, use_case: str | None, base: float | None) -> float | None:
    """The memory a rent-or-buy answer asks for: ``min_memory``, else ``base`` (GPUVALUE_MIN_MEMORY_GB),
    with a use case's minimum as a floor under it."""
    preset = USE_CASES[use_case].min_memory_gb if use_case else None
    floors = [m for m in (min_memory if min_memory is not None else base, preset) if m is not None]
    return max(floors) if floors else None


def rent_or_buy_for(used: list[Mapping[str, Any]], rental: list[Mapping[str, Any]], *, budget: float,
                    min_memory: float | None, assumptions: Assumptions, price_window_days: int,
                    use_case: str | None = None, include_legacy: bool = False, include_passive: bool = False,
                    include_modules: bool = False) -> RentOrBuy:
    """``recommend --hours-per-week``: buy the best used card or rent the best cloud card, among the
    used cards recommend considers (the buyer view at ``min_memory``, see ``memory_floor``), saying
    how many it left out and why."""
    from gpuvalue.models.recommend import use_case_floor_words, use_case_precision_words

    view = BuyerView(min_memory_gb=min_memory, include_legacy=include_legacy, include_passive=include_passive,
                     include_modules=include_modules)
    shown = [row for row in used if hidden_because(row, view) is None]
    # A rental price is stale by the used prices' rule (older than the price window on the ranking's day).
    day = used[0]["as_of"]
    answer = rent_or_buy(shown, list(rental), budget_usd=budget, assumptions=assumptions, min_memory_gb=min_memory,
                         desktop_only=not include_modules, include_legacy=include_legacy,
                         rent_stale_on_or_before=day - timedelta(days=price_window_days))
    if use_case:  # its memory floor and, where the figures are of another, its precision, as `recommend` says them
        precision = use_case_precision_words(use_case, [r.get("perf_precision") for r in (*used, *rental)])
        answer.notes[:0] = [use_case_floor_words(use_case), *([precision] if precision else [])]
    left_out = left_out_summary(used, view)
    if left_out:
        answer.notes.append(left_out)
    return answer


def rent_or_buy_json(answer: RentOrBuy) -> dict[str, Any]:
    """A rent-or-buy answer as the page embeds it."""

    def option(o) -> dict[str, Any] | None:
        return None if o is None else {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(o).items()}

    be = answer.break_even_hours_per_week
    return {"verdict": answer.verdict, "buy": option(answer.buy), "rent": option(answer.rent),
            "rent_over_budget": option(answer.rent_over_budget),
            "break_even_hours_per_week": None if be is None or not math.isfinite(be) else round(be, 2),
            "same_card_break_even": answer.same_card_break_even and round(answer.same_card_break_even, 2),
            "assumptions": answer.assumptions.describe(), "notes": list(answer.notes)}


# The inputs the page offers: every combination is answered by the run that writes the page.
BUDGETS = (300, 400, 500, 600, 800, 1000, 1500, 2000, 3000, 5000, 10000)
MIN_MEMORIES = (None, 8, 12, 16, 24, 48)
HOURS_PER_WEEK = (2, 5, 10, 20, 40, 80)


def vendors_of(rows: Iterable[Mapping[str, Any]]) -> tuple[str | None, ...]:
    held = {str(r.get("vendor")) for r in rows if r.get("vendor")}
    return (None, *[v for v in VENDORS if v in held])


def grid(rows: list[Mapping[str, Any]]) -> list[Inputs]:
    """Every combination of budget, memory floor, use case, vendor and framework support the page offers."""
    return [Inputs(budget=float(b), min_memory=None if m is None else float(m), use_case=u, vendor=v, include_legacy=legacy)
            for b in BUDGETS for m in MIN_MEMORIES for u in (None, *USE_CASES) for v in vendors_of(rows)
            for legacy in (False, True)]


def same_answers(inputs: Inputs, base_min_memory: float | None) -> tuple:
    """Inputs that recommend answers alike share this key: a memory floor below the use case's
    minimum (or the default) is that minimum. The page stores each answer once under its key;
    tests/flows/test_buyer_page.py checks the key against ``answers_for`` on the whole grid."""
    preset = USE_CASES[inputs.use_case].min_memory_gb if inputs.use_case else None
    base = inputs.min_memory if inputs.min_memory is not None else base_min_memory
    floor = max(m for m in (base, preset, 0.0) if m is not None)
    return (inputs.budget, floor, inputs.use_case, inputs.vendor, inputs.include_legacy)


def page_answers(rows: list[Mapping[str, Any]], *, scaling: dict | None, view: BuyerView,
                 base_min_memory: float | None) -> dict[str, Any]:
    """``answers_for`` over the whole grid, packed for the page: each distinct answer once, the cards'
    facts once (``cards``), the long texts once (``texts``), and for every combination of inputs, in
    grid order, the index of its answer (``index``). The page's script only looks these up."""
    dims = {"budget": list(BUDGETS), "min_memory": list(MIN_MEMORIES), "use_case": [None, *USE_CASES],
            "vendor": list(vendors_of(rows)), "include_legacy": [False, True]}
    texts: dict[str, int] = {}
    cards: dict[str, dict[str, Any]] = {}
    answers: list[list] = []
    by_key: dict[tuple, int] = {}
    index: list[int] = []

    def text(value: str | None) -> int | None:
        return None if value is None else texts.setdefault(value, len(texts))

    for inputs in grid(rows):
        key = same_answers(inputs, base_min_memory)
        if key not in by_key:
            found = answers_for(rows, inputs, scaling=scaling, view=view)
            packed: list = []
            for name in ANSWERS:
                entry = found[name]
                if entry is None:
                    packed.append(None)
                    continue
                card = {k: v for k, v in entry.items() if k not in ("money_left_usd", "assumptions", "reason")}
                cards.setdefault(entry["model"], card)
                packed.append([entry["model"], entry["money_left_usd"], text(entry["reason"])])
            answers.append([*packed, [text(a) for a in found["assumptions"]], text(found["why"]),
                            found["min_memory_gb"]])
            by_key[key] = len(answers) - 1
        index.append(by_key[key])
    return {"dims": dims, "answers": answers, "index": index, "cards": cards,
            "texts": sorted(texts, key=texts.__getitem__)}
