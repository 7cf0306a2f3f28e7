"""Which card to buy for a budget and a use: picks from the day's ranking, with reasons.

Pure: ranking rows in (dicts with the ``ranking_daily`` columns), a ``Recommendation`` out.
The ranking orders every card by speed per dollar; a buyer also needs enough memory for
the work, a price they can trust, and to know what a little more money would buy.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from gpuvalue.models.buyer_view import BuyerView, hidden_because, left_out_summary, row_notes
from gpuvalue.models.framework_support import card_caveat, of_vendor, prefer_cuda_rows
from gpuvalue.models.memory_class import memory_class
from gpuvalue.models.perf_label import is_low_confidence, perf_source_label
from gpuvalue.models.price_age import age_words, index_price_words, is_index_price, tiers_note


@dataclass(frozen=True)
class UseCase:
    min_memory_gb: float
    precision: str  # the precision the ranking's relative_perf should be measured in
    why: str


# Memory minimums are where common work stops running out of memory, not where it is
# comfortable; they exist so that a cheap 3-4 GB card never comes out on top.
USE_CASES: dict[str, UseCase] = {
    "beginner": UseCase(8, "fp16", "course notebooks and small CNNs fit in 8 GB with mixed precision; 3-6 GB cards run out of memory on common tutorials"),
    "kaggle": UseCase(12, "fp16", "competition baselines (EfficientNet, DeBERTa-base) need 12 GB at useful batch sizes"),
    "research": UseCase(12, "fp32", "reproducing papers often needs full or TF32 precision and 12 GB for reference batch sizes"),
    "cv": UseCase(12, "fp16", "detection and segmentation models at 512-1024 px need 12 GB for batches larger than a few images"),
    "nlp": UseCase(16, "fp16", "fine-tuning BERT-large or 1B-parameter transformers at 512 tokens needs 16 GB"),
    "llm": UseCase(24, "fp16", "LoRA fine-tuning of 7B models in 16-bit, or QLoRA of 13B models, needs 24 GB"),
}


def use_case_floor_words(use_case: str) -> str:
    """Why a use case asks for its memory: every answer for a use case says it."""
    preset = USE_CASES[use_case]
    return f"{use_case}: at least {preset.min_memory_gb:g} GB because {preset.why}"


def use_case_precision_words(use_case: str, precisions: Iterable[str | None]) -> str | None:
    """A use case's preferred precision, said where the figures at hand are of another only."""
    preset = USE_CASES[use_case]
    held = {p for p in precisions if p}
    if not held or preset.precision in held:
        return None
    return f"{use_case} prefers {preset.precision} performance, but the ranking has {', '.join(sorted(held))}; using that"


STRETCH_BUDGET = 1.25  # "a bit more money": up to 25% over budget
MEANINGFULLY_FASTER = 1.15  # at least 15% more throughput, or it is not worth mentioning
DATA_PARALLEL_ADDED_GPU = 0.9  # assumed: each added GPU adds 90% of one card (data parallel)
ELECTRICITY_YEARS = 3


@dataclass(frozen=True)
class Pick:
    model: str
    gpus: int
    price_usd: float  # per card
    cost_usd: float  # all cards
    relative_perf: float  # one card
    throughput: float  # all cards, after scaling, in reference-card units
    value: float  # throughput per 1000 USD of purchase cost
    memory_gb: float | None
    price_kind: str
    price_n: int
    price_as_of: date | None
    stale: bool
    confidence: str  # high | medium | low
    reason: str
    scaling_efficiency: float = 1.0
    scaling_note: str | None = None
    tdp_w: int | None = None
    yearly_electricity_usd: float | None = None
    value_with_electricity: float | None = None  # throughput per 1000 USD of cost + 3 years of power
    price_tier: str = "recent"  # 'older': priced long before the newest price; ranked after the recent ones
    price_age_days: int | None = None
    notes: tuple[str, ...] = ()  # "legacy PyTorch builds only", "passive: needs a fan kit"
    caveat: str | None = None  # not CUDA: what the buyer gives up, one line (models/framework_support.py)


@dataclass(frozen=True)
class MultiGpuComparison:
    gpus: int
    many: Pick | None  # the best N-card setup within budget
    single: Pick | None  # the fastest single card within budget
    verdict: str


@dataclass(frozen=True)
class Recommendation:
    budget_usd: float
    min_memory_gb: float | None
    use_case: str | None
    gpus: int
    picks: list[Pick]
    stretch: Pick | None  # faster option a little over budget
    message: str | None  # set when nothing fits, or to explain what was left out
    multi_gpu: MultiGpuComparison | None = None
    assumptions: list[str] = field(default_factory=list)


def price_confidence(row: dict[str, Any]) -> tuple[str, str]:
    """(level, words): how far a price can be trusted, from its kind, sample size and age."""
    kind, n, dated = row.get("price_kind"), int(row.get("price_n") or 0), row.get("price_as_of")
    when = f" as of {dated.isoformat()}" if isinstance(dated, date) else ""
    if is_index_price(row):  # somebody else's monthly average, never an own median
        return "low", index_price_words(row)
    if row.get("stale"):
        return "low", f"stale {kind} price{when}"
    if kind == "launch":
        return "low", f"launch price{when}, no market data"
    if kind == "sold" and n >= 10:
        return "high", f"median of {n} sold listings{when}"
    if kind == "sold" and n >= 3:
        return "medium", f"median of only {n} sold listings{when}"
    if kind == "asking":
        return "medium" if n >= 10 else "low", f"asking prices ({n} listings){when}; sold prices are usually lower"
    return "low", f"{n} {kind} price{'s' if n != 1 else ''}{when}"


def perf_provenance(row: dict[str, Any]) -> str:
    """Where a card's speed figure comes from, in a few words: a recommendation must not
    present an estimate (let alone a low-confidence one) as if it were measured."""
    source, method = row.get("perf_source"), str(row.get("perf_method") or "")
    if not source:
        return ""
    if source == "local":
        return "speed measured on this machine"
    if source != "estimate":
        return f"speed measured ({perf_source_label(row)})"
    if not is_low_confidence(row):
        return "speed estimated from specs"
    if "likely low" in method:
        return "speed estimated from specs, low confidence (likely too low)"
    if "likely high" in method:
        return "speed estimated from specs, low confidence (likely too high)"
    return "speed estimated from specs, low confidence"


def scaling_efficiency(model: str, gpus: int, scaling: dict | None) -> tuple[float, str | None]:
    """Per-card efficiency for N cards: measured when known, else the stated data-parallel assumption."""
    if gpus == 1:
        return 1.0, None
    measured = (scaling or {}).get(model) or {}
    for key in (gpus, str(gpus)):
        if key in measured:
            return float(measured[key]), f"measured {gpus}-GPU scaling {float(measured[key]):.0%}"
    efficiency = (1 + DATA_PARALLEL_ADDED_GPU * (gpus - 1)) / gpus
    return efficiency, f"assumed: each added GPU adds {DATA_PARALLEL_ADDED_GPU:.0%} of a card (data parallel)"


def _usable(row: dict[str, Any], view: BuyerView) -> bool:
    if hidden_because(row, view) is not None:
        return False
    return bool(row.get("price_usd") and row["price_usd"] > 0 and row.get("relative_perf") and row["relative_perf"] > 0)


def _pick(
    row: dict[str, Any],
    gpus: int,
    scaling: dict | None,
    min_memory: float | None,
    min_memory_basis: str,
    kwh_price: float | None,
    hours_per_day: float | None,
) -> Pick:
    efficiency, note = scaling_efficiency(row["model"], gpus, scaling)
    cost = row["price_usd"] * gpus
    throughput = row["relative_perf"] * gpus * efficiency
    value = throughput / cost * 1000.0
    level, price_words = price_confidence(row)
    yearly = value_3y = None
    tdp = row.get("tdp_w")
    if kwh_price is not None and hours_per_day is not None and tdp:
        yearly = tdp / 1000.0 * hours_per_day * 365 * kwh_price * gpus
        value_3y = throughput / (cost + ELECTRICITY_YEARS * yearly) * 1000.0
    memory = row.get("memory_gb")
    if memory is None:
        fit = "memory unknown"
    elif min_memory is not None:
        fit = f"{memory:g} GB meets {min_memory_basis} of {min_memory:g} GB"
    else:
        fit = f"{memory:g} GB ({memory_class(memory)})"
    setup = f" ({gpus} cards)" if gpus > 1 else ""
    speed = perf_provenance(row)
    speed = f"; {speed}" if speed else ""
    notes = tuple(row_notes(row))
    extra = "".join(f"; {note}" for note in notes)
    age = row.get("price_age_days")
    # A price past the window says how old it is, recent tier or not ("stale asking price as of
    # 2025-11-25" read as fresh a year later).
    older = f" ({age_words(age)} old)" if (row.get("price_tier") == "older" or row.get("stale")) and age is not None else ""
    reason = f"{value:.2f} perf per $1k{setup}; {fit}{speed}; price {level} confidence: {price_words}{older}{extra}"
    return Pick(
        model=row["model"], gpus=gpus, price_usd=row["price_usd"], cost_usd=cost,
        relative_perf=row["relative_perf"], throughput=throughput, value=value, memory_gb=memory,
        price_kind=row.get("price_kind") or "unknown", price_n=int(row.get("price_n") or 0),
        price_as_of=row.get("price_as_of"), stale=bool(row.get("stale")), confidence=level, reason=reason,
        scaling_efficiency=efficiency, scaling_note=note, tdp_w=tdp,
        yearly_electricity_usd=yearly, value_with_electricity=value_3y,
        price_tier=row.get("price_tier") or "recent", price_age_days=age, notes=notes,
        caveat=card_caveat(row),
    )


def _order(pick: Pick, with_power: bool) -> tuple:
    """Recently priced cards first (as the ranking orders them), then best value, then speed; with
    electricity prices, value over three years of use."""
    older = pick.price_tier == "older"
    if with_power:
        known = pick.value_with_electricity is not None
        return (older, not known, -(pick.value_with_electricity if known else pick.value), -pick.throughput,
                pick.model)
    return (older, -pick.value, -pick.throughput, pick.model)


def recommend(
    rows: list[dict[str, Any]],
    *,
    budget_usd: float,
    min_memory_gb: float | None = None,
    use_case: str | None = None,
    kwh_price: float | None = None,
    hours_per_day: float | None = None,
    gpus: int = 1,
    scaling: dict | None = None,
    top: int = 3,
    view: BuyerView | None = None,
    vendor: str | None = None,
) -> Recommendation:
    """Best picks within budget, a stretch option, and (for ``gpus`` > 1) N cards vs one.

    Only cards ``view`` shows are considered (default: the default PyTorch wheels run it, at least 6 GB,
    a desktop takes it without a fan kit); an explicit ``min_memory_gb`` replaces the view's minimum and a
    use case's minimum is a floor under both. Recently priced cards come before older-priced ones."""
    if budget_usd <= 0:
        raise ValueError("budget_usd must be positive")
    if gpus < 1:
        raise ValueError("gpus must be at least 1")
    if use_case is not None and use_case not in USE_CASES:
        raise ValueError(f"unknown use case {use_case!r}; choose one of {', '.join(USE_CASES)}")
    if (kwh_price is None) != (hours_per_day is None):
        raise ValueError("give both kwh_price and hours_per_day to include electricity, or neither")

    assumptions: list[str] = []
    view = view or BuyerView()
    preset = USE_CASES.get(use_case) if use_case else None
    base = min_memory_gb if min_memory_gb is not None else view.min_memory_gb
    floors = [m for m in (base, preset.min_memory_gb if preset else None) if m is not None]
    min_memory = max(floors) if floors else None
    # Whose minimum binds: the use case's where it is the higher floor, else the one asked for.
    binding_preset = preset is not None and preset.min_memory_gb is not None and preset.min_memory_gb == min_memory
    min_memory_basis = f"the {use_case} minimum" if binding_preset else "the minimum"
    view = replace(view, min_memory_gb=min_memory)
    if preset:
        assumptions.append(use_case_floor_words(use_case))
        precisions = {row.get("perf_precision") for row in rows}
        if preset.precision in precisions:
            rows = [row for row in rows if row.get("perf_precision") == preset.precision]
        elif (words := use_case_precision_words(use_case, precisions)) is not None:
            assumptions.append(words)
    with_power = kwh_price is not None and hours_per_day is not None
    if with_power:
        assumptions.append(
            f"electricity: full board power {hours_per_day:g} h/day at ${kwh_price:g}/kWh, "
            f"value counts {ELECTRICITY_YEARS} years of it"
        )

    usable = of_vendor([row for row in rows if _usable(row, view)], vendor)
    usable, cuda_words = prefer_cuda_rows(usable, use_case, vendor, lambda row: row["price_usd"] * gpus <= budget_usd)
    if cuda_words:
        assumptions.append(cuda_words)
    left_out = left_out_summary(rows, view)
    if left_out:
        assumptions.append(left_out)

    def picks_for(count: int) -> list[Pick]:
        return [_pick(row, count, scaling, min_memory, min_memory_basis, kwh_price, hours_per_day) for row in usable]

    options = picks_for(gpus)
    affordable = sorted((p for p in options if p.cost_usd <= budget_usd), key=lambda p: _order(p, with_power))
    picks = affordable[:top]

    best = picks[0] if picks else None
    floor = best.throughput * MEANINGFULLY_FASTER if best else 0.0
    # A stretch is compared with the top pick, so its price is of the pick's tier: a 2023 index price
    # a little over budget is no reason to spend more than on a 2025 asking price.
    stretch_options = [
        p for p in options if budget_usd < p.cost_usd <= budget_usd * STRETCH_BUDGET and p.throughput >= floor
        and (best is None or p.price_tier == best.price_tier)
    ]
    stretch = min(stretch_options, key=lambda p: _order(p, with_power)) if stretch_options else None
    if gpus > 1:  # the assumed scaling is said where a card shown uses it, not where a measured one does
        shown_picks = [p for p in (*picks, stretch) if p is not None]
        notes = sorted({p.scaling_note for p in shown_picks if p.scaling_note and p.scaling_note.startswith("assumed")})
        assumptions.extend(notes)

    message = None
    if not picks:
        need = f" with at least {min_memory:g} GB" if min_memory is not None else ""
        setup = f"{gpus}-card setup" if gpus > 1 else "card"
        if options:
            cheapest = min(options, key=lambda p: p.cost_usd)
            several = f"{gpus}x " if gpus > 1 else ""
            message = (
                f"Nothing fits ${budget_usd:,.0f}: the cheapest {setup}{need} is {several}{cheapest.model} "
                f"at ${cheapest.cost_usd:,.0f}."
            )
        else:
            message = f"No ranked card{need} is usable today."

    multi = None
    if gpus > 1:
        singles = [p for p in picks_for(1) if p.cost_usd <= budget_usd
                   and (best is None or p.price_tier == best.price_tier)]  # prices compared within their tier
        single = max(singles, key=lambda p: (p.throughput, p.value)) if singles else None
        many = best
        if many and single:
            if many.throughput > single.throughput * 1.05:
                verdict = (
                    f"{gpus}x {many.model} gives {many.throughput / single.throughput:.2f}x the throughput of one "
                    f"{single.model} for ${many.cost_usd:,.0f} vs ${single.cost_usd:,.0f}, if the work splits "
                    f"across cards (each card still holds only {many.memory_gb:g} GB)."
                )
            else:
                # Within 5 %, the multi-GPU setup's overhead (its scaling is an estimate) outweighs it.
                close = "as fast as or faster than" if single.throughput >= many.throughput else "within 5 % of"
                verdict = (
                    f"One {single.model} is {close} {gpus}x {many.model} "
                    f"({single.throughput:.3f} vs {many.throughput:.3f}) and avoids multi-GPU overhead."
                )
        elif single:
            verdict = f"No {gpus}-card setup fits the budget; the fastest single card is {single.model}."
        else:
            verdict = "Neither a multi-GPU setup nor a single card fits the budget."
        multi = MultiGpuComparison(gpus=gpus, many=many, single=single, verdict=verdict)

    shown = picks or ([stretch] if stretch else [])  # a stretch shares the top pick's tier
    if any(p.price_tier == "older" for p in shown):
        older = [{"price_tier": p.price_tier, "price_age_days": p.price_age_days} for p in shown]
        note = tiers_note(older)
        if note:
            assumptions.append(note.replace("card(s)", "pick(s)", 1))

    return Recommendation(
        budget_usd=budget_usd, min_memory_gb=min_memory, use_case=use_case, gpus=gpus, picks=picks,
        stretch=stretch, message=message, multi_gpu=multi, assumptions=assumptions,
    )


def format_recommendation(rec: Recommendation) -> str:
    """Plain text for a terminal: picks with reasons, stretch option, assumptions."""
    need = f", at least {rec.min_memory_gb:g} GB" if rec.min_memory_gb is not None else ""
    use = f" for {rec.use_case}" if rec.use_case else ""
    setup = f" ({rec.gpus} GPUs)" if rec.gpus > 1 else ""
    lines = [f"Budget ${rec.budget_usd:,.0f}{use}{need}{setup}"]
    if rec.message:
        lines.append(rec.message)
    for number, pick in enumerate(rec.picks, start=1):
        count = f"{pick.gpus}x " if pick.gpus > 1 else ""
        lines.append(f"{number}. {count}{pick.model}: ${pick.cost_usd:,.0f}, throughput {pick.throughput:.2f}x")
        lines.append(f"   {pick.reason}")
        if pick.yearly_electricity_usd is not None:
            lines.append(
                f"   electricity ~${pick.yearly_electricity_usd:,.0f}/year; "
                f"{pick.value_with_electricity:.2f} perf per $1k over {ELECTRICITY_YEARS} years"
            )
        if pick.scaling_note:
            lines.append(f"   scaling {pick.scaling_efficiency:.0%} per card ({pick.scaling_note})")
        if pick.caveat:
            lines.append(f"   {pick.caveat}")
    if rec.stretch:
        s = rec.stretch
        extra = s.cost_usd - rec.budget_usd
        faster = s.throughput / rec.picks[0].throughput - 1 if rec.picks else None
        gain = f", {faster:.0%} faster than the top pick" if faster is not None else ""
        count = f"{s.gpus}x " if s.gpus > 1 else ""
        lines.append(f"For ${extra:,.0f} more: {count}{s.model} at ${s.cost_usd:,.0f}{gain} ({s.reason}).")
        if s.caveat:
            lines.append(f"   {s.caveat}")
    if rec.multi_gpu:
        lines.append(rec.multi_gpu.verdict)
    for assumption in rec.assumptions:
        lines.append(f"Note: {assumption}")
    return "\n".join(lines)
