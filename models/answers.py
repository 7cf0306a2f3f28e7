"""What the buyer's page and ``recommend`` share beyond the answers themselves: the inputs a buyer sets
(``Inputs``), the settings the answers read, the candidate table packed for the page (``page_table``:
the page's script applies ``models/choose.py``'s rule to it, so the page and ``recommend --json`` never
disagree) and rent or buy for the page's steps.

Pure: ranking rows in (``ranking_daily`` columns), plain JSON-ready dicts out.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import timedelta
from typing import Any

from gpuvalue.models.buyer_view import BuyerView, hidden_because, left_out_summary
from gpuvalue.models.price_age import age_words
from gpuvalue.models.budget_answers import (SINGLE_CARD_USE_CASES, AnswerOptions, candidate_table, is_ampere_cuda,
                                           setup_own_words)
from gpuvalue.models.choose import BEGINNER_ARCHITECTURE
from gpuvalue.models.multi_gpu import ScalingFacts
from gpuvalue.models.framework_support import card_caveat
from gpuvalue.models.recommend import USE_CASES, use_case_floor_words, use_case_precision_words
from gpuvalue.models.rent_vs_buy import Assumptions, Machine, RentOrBuy, assumption_words, rent_or_buy

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


def build_settings(settings: Any) -> dict[str, Any]:
    """The settings of the machine around the cards, as ``AnswerOptions`` takes them: a platform cost of 0
    (the default) leaves the machine to the default by card count."""
    custom = bool(settings.platform_cost_usd or settings.extra_gpu_cost_usd)
    return {"platform_cost_usd": settings.platform_cost_usd if custom else None,
            "extra_gpu_cost_usd": settings.extra_gpu_cost_usd if custom else None,
            "platform_two_gpus_usd": settings.platform_two_gpus_usd,
            "platform_workstation_usd": settings.platform_workstation_usd, "power_limit_w": settings.power_limit_w}


def recommend_settings(settings: Any) -> dict[str, Any]:
    """The settings recommend's answers read beyond their inputs (GPUVALUE_MAX_GPUS, the machine and power
    rules, the ownership horizon, the assumed multi-GPU efficiency), as ``page_data`` takes them."""
    return {"workstation_gpus": settings.max_gpus, **build_settings(settings),
            "ownership_months": settings.holding_months, "multi_gpu_efficiency": settings.multi_gpu_efficiency}


def memory_floor(min_memory: float | None, use_case: str | None, base: float | None) -> float | None:
    """The memory a rent-or-buy answer asks for: ``min_memory``, else ``base`` (GPUVALUE_MIN_MEMORY_GB),
    with a use case's minimum as a floor under it."""
    preset = USE_CASES[use_case].min_memory_gb if use_case else None
    floors = [m for m in (min_memory if min_memory is not None else base, preset) if m is not None]
    return max(floors) if floors else None


def rent_or_buy_for(used: Sequence[Mapping[str, Any]], rental: Sequence[Mapping[str, Any]], *, budget: float,
                    min_memory: float | None, assumptions: Assumptions, price_window_days: int,
                    use_case: str | None = None, include_legacy: bool = False, include_passive: bool = False,
                    include_modules: bool = False, machine: Machine | None = None) -> RentOrBuy:
    """``recommend --hours-per-week``: buy the best used card or rent the best cloud card, among the
    used cards recommend considers (the buyer view at ``min_memory``, see ``memory_floor``), saying
    how many it left out and why. ``machine``: the machine around the bought card (default: the
    buyer's desktop, ``Machine.for_one_card``)."""
    view = BuyerView(min_memory_gb=min_memory, include_legacy=include_legacy, include_passive=include_passive,
                     include_modules=include_modules)
    shown = [row for row in used if hidden_because(row, view) is None]
    if use_case == "beginner":  # recommend's rule for a first card: an Ampere or newer NVIDIA card, bought as well
        shown = [row for row in shown if is_ampere_cuda(row)]
    # A rental price is stale by the used prices' rule (older than the price window on the ranking's day).
    day = used[0]["as_of"]
    answer = rent_or_buy(shown, list(rental), budget_usd=budget, assumptions=assumptions, min_memory_gb=min_memory,
                         desktop_only=not include_modules, include_legacy=include_legacy,
                         rent_stale_on_or_before=day - timedelta(days=price_window_days),
                         machine=Machine.for_one_card() if machine is None else machine)
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
            "assumptions": assumption_words(answer), "notes": list(answer.notes),
            "min_memory_gb": answer.min_memory_gb,
            "machine": {"bought_usd": answer.machine.bought_usd, "existing_usd": answer.machine.existing_usd,
                        "power_w": answer.machine.power_w,
                        "usd_per_hour": round(answer.machine.usd_per_hour(answer.assumptions), 4)}}


# The steps the page's rent-or-buy answers are computed at (its budget and memory at or below the asked).
BUDGETS = (300, 400, 500, 600, 800, 1000, 1500, 2000, 3000, 5000, 10000)
MIN_MEMORIES = (None, 8, 12, 16, 24, 48)
HOURS_PER_WEEK = (2, 5, 10, 20, 40, 80)


def vendors_of(rows: Iterable[Mapping[str, Any]]) -> tuple[str | None, ...]:
    held = {str(r.get("vendor")) for r in rows if r.get("vendor")}
    return (None, *[v for v in VENDORS if v in held])


# A candidate's fields the page shows beside what ``choose`` reads: its price with date and source, its speed.
_CARD_FIELDS = ("price_usd", "price_kind", "price_n", "price_as_of", "price_age_days", "price_tier", "stale",
                "perf_source", "perf_precision")


def page_table(rows: Sequence[Mapping[str, Any]], *, scaling: ScalingFacts | None, view: BuyerView,
               base_min_memory: float | None, **settings: Any) -> dict[str, Any]:
    """The candidate table ``recommend`` chooses from (``candidate_table``), packed for the page with what
    its script needs to apply the same rule (``models/choose.py``) to any input: each setup's fields, its
    own assumptions and its card's price facts; the use cases' floors and words; the shared assumptions."""
    options = AnswerOptions(budget_usd=1.0, view=view, **settings)
    facts = scaling or ScalingFacts()
    precisions = {r.get("perf_precision") for r in rows}
    wanted = USE_CASES[next(iter(USE_CASES))].precision
    rows = [r for r in rows if r.get("perf_precision") == wanted] if wanted in precisions else list(rows)
    texts: dict[str, int] = {}

    def text(value: str) -> int:
        return texts.setdefault(value, len(texts))

    table = []
    for setup in candidate_table(rows, facts, options):
        row = setup.row
        entry = setup.candidate()
        entry.update({k: row.get(k) for k in _CARD_FIELDS})
        entry["price_source"] = row.get("price_source_label") or row.get("price_source")
        entry["price_age"] = age_words(row.get("price_age_days")) if row.get("price_age_days") is not None else None
        entry["own"] = [text(words) for words in setup_own_words(setup)]
        table.append(entry)
    return {
        "table": table, "texts": sorted(texts, key=texts.__getitem__),
        "use_cases": {name: {"min_memory_gb": u.min_memory_gb, "words": use_case_floor_words(name),
                             "single_card": name in SINGLE_CARD_USE_CASES} for name, u in USE_CASES.items()},
        "vendors": [v for v in vendors_of(rows) if v], "base_min_memory": base_min_memory,
        "workstation_gpus": options.workstation_gpus, "beginner_architecture": BEGINNER_ARCHITECTURE,
    }
