"""The three answers a buyer asks for, from one set of inputs: the fastest setup, the best value and
the cheapest, each within the budget. ``recommend --json`` prints them and the buyer's page looks
them up, so the terminal and the page never disagree: both come from ``budget_answers``.

Pure: ranking rows in (``ranking_daily`` columns), plain JSON-ready dicts out. The picks are
``models/budget_answers.py``'s; this module packs them for the page and says where each number
comes from.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from datetime import timedelta
from typing import Any

from gpuvalue.models.buyer_view import BuyerView, hidden_because, left_out_summary
from gpuvalue.models.price_age import age_words
from gpuvalue.models.budget_answers import ANSWERS, AnswerOptions, answers_json, budget_answers
from gpuvalue.models.multi_gpu import ScalingFacts
from gpuvalue.models.framework_support import card_caveat
from gpuvalue.models.recommend import USE_CASES, use_case_floor_words, use_case_precision_words
from gpuvalue.models.rent_vs_buy import Assumptions, RentOrBuy, rent_or_buy

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


def _entry(answer: Mapping[str, Any], row: Mapping[str, Any]) -> dict[str, Any]:
    """One answer as the page shows it: ``answers_json``'s answer (``models/budget_answers.py``) with
    where each number comes from."""
    age = answer.get("price_age_days")
    return {
        **answer,
        "reason": answer.get("why"),
        "perf_per_1k_usd": answer.get("perf_per_1000_usd"),
        "price_age": age_words(age) if age is not None else None,
        "price_source": row.get("price_source_label") or row.get("price_source"),
        "perf_precision": row.get("perf_precision"),
    }


def recommend_settings(settings: Any) -> dict[str, Any]:
    """The settings recommend's answers read beyond their inputs (GPUVALUE_MAX_GPUS, the platform costs,
    the ownership horizon, the assumed multi-GPU efficiency), as ``page_data`` takes them."""
    return {"workstation_gpus": settings.max_gpus, "platform_cost_usd": settings.platform_cost_usd,
            "extra_gpu_cost_usd": settings.extra_gpu_cost_usd, "ownership_months": settings.holding_months,
            "multi_gpu_efficiency": settings.multi_gpu_efficiency}


def answer_options(inputs: Inputs, *, view: BuyerView | None = None, **settings: Any) -> AnswerOptions:
    """``recommend``'s options for ``inputs``; ``settings``: the rest of ``AnswerOptions`` (the card
    limit, platform costs, ownership months) as the settings give them."""
    view = replace(view or BuyerView(), include_legacy=inputs.include_legacy)
    return AnswerOptions(budget_usd=inputs.budget, use_case=inputs.use_case, min_memory_gb=inputs.min_memory,
                         view=view, vendor=inputs.vendor, **settings)


def answers_for(rows: Sequence[Mapping[str, Any]], inputs: Inputs, *, scaling: ScalingFacts | None = None,
                view: BuyerView | None = None, new_prices: Mapping[str, Mapping[str, Any]] | None = None,
                **settings: Any) -> dict[str, Any]:
    """The fastest setup, the best value and the cheapest within ``inputs.budget``: exactly
    ``budget_answers``, the function whose ``answers_json`` ``recommend --json`` prints. Where nothing
    fits, each answer is None and ``why`` says so."""
    result = budget_answers(list(rows), scaling or ScalingFacts(), answer_options(inputs, view=view, **settings),
                            new_prices=new_prices)
    found = answers_json(result)
    by_model = {r["model"]: r for r in rows}
    out: dict[str, Any] = {"inputs": inputs.query(), "min_memory_gb": result.min_memory_gb,
                           "assumptions": list(result.assumptions), "why": None}
    for name in ANSWERS:
        answer = found[name]
        out[name] = None if answer["model"] is None else _entry(answer, by_model.get(answer["model"], {}))
    if all(out[name] is None for name in ANSWERS):
        out["why"] = found["fastest"]["why"] or "No ranked card fits these inputs."
    return out


def memory_floor(min_memory: float | None, use_case: str | None, base: float | None) -> float | None:
    """The memory a rent-or-buy answer asks for: ``min_memory``, else ``base`` (GPUVALUE_MIN_MEMORY_GB),
    with a use case's minimum as a floor under it."""
    preset = USE_CASES[use_case].min_memory_gb if use_case else None
    floors = [m for m in (min_memory if min_memory is not None else base, preset) if m is not None]
    return max(floors) if floors else None


def rent_or_buy_for(used: Sequence[Mapping[str, Any]], rental: Sequence[Mapping[str, Any]], *, budget: float,
                    min_memory: float | None, assumptions: Assumptions, price_window_days: int,
                    use_case: str | None = None, include_legacy: bool = False, include_passive: bool = False,
                    include_modules: bool = False) -> RentOrBuy:
    """``recommend --hours-per-week``: buy the best used card or rent the best cloud card, among the
    used cards recommend considers (the buyer view at ``min_memory``, see ``memory_floor``), saying
    how many it left out and why."""
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
    for option, candidates in ((answer.buy, shown), (answer.rent, rental)):  # a non-CUDA answer says its cost
        row = next((r for r in candidates if option is not None and r["model"] == option.model), None)
        if option is not None and row is not None and (caveat := card_caveat(row)):
            answer.notes.append(f"{option.model}: {caveat}")
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


def grid(rows: Sequence[Mapping[str, Any]]) -> list[Inputs]:
    """Every combination of budget, memory floor, use case, vendor and framework support the page offers."""
    return [Inputs(budget=float(b), min_memory=None if m is None else float(m), use_case=u, vendor=v, include_legacy=legacy)
            for b in BUDGETS for m in MIN_MEMORIES for u in (None, *USE_CASES) for v in vendors_of(rows)
            for legacy in (False, True)]


def same_answers(inputs: Inputs, base_min_memory: float | None) -> tuple:
    """Inputs that recommend answers alike share this key: a memory floor below the use case's
    minimum (or the default) is that minimum. The page stores each answer once under its key;
    tests/flows/test_buyer_page.py checks the key against ``answers_for`` on the whole grid."""
    floor = memory_floor(inputs.min_memory, inputs.use_case, base_min_memory) or 0.0
    return (inputs.budget, floor, inputs.use_case, inputs.vendor, inputs.include_legacy)


# An answer's fields that belong to its setup, not to its card: left out of the page's ``cards``.
_PER_SETUP = frozenset({"money_left_usd", "assumptions", "reason", "why", "gpus", "cost_usd", "cards_usd",
                        "platform_usd", "throughput", "throughput_low", "throughput_high", "new_price",
                        "yearly_electricity_usd", "scaling_efficiency", "scaling_measured",
                        "money_left_text", "setup_assumptions"})


def page_answers(rows: Sequence[Mapping[str, Any]], *, scaling: ScalingFacts | None, view: BuyerView,
                 base_min_memory: float | None, new_prices: Mapping[str, Mapping[str, Any]] | None = None,
                 **settings: Any) -> dict[str, Any]:
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
            found = answers_for(rows, inputs, scaling=scaling, view=view, new_prices=new_prices, **settings)
            packed: list = []
            for name in ANSWERS:
                entry = found[name]
                if entry is None:
                    packed.append(None)
                    continue
                card = {k: v for k, v in entry.items() if k not in _PER_SETUP}
                cards.setdefault(entry["model"], card)
                packed.append([entry["model"], entry["money_left_usd"], text(entry["reason"]), entry["gpus"],
                               entry["cost_usd"], entry["throughput"], entry["money_left_text"],
                               [text(a) for a in entry["setup_assumptions"]]])
            answers.append([*packed, [text(a) for a in found["assumptions"]], text(found["why"]),
                            found["min_memory_gb"]])
            by_key[key] = len(answers) - 1
        index.append(by_key[key])
    return {"dims": dims, "answers": answers, "index": index, "cards": cards,
            "texts": sorted(texts, key=texts.__getitem__)}
