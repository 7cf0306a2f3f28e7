"""What a budget buys: the fastest setup, the best value and the cheapest setup that meets the need.

A buyer with a budget asks for the fastest training the money buys; the ranking's order (speed
per dollar) answers another question. So this takes the day's ranking rows and, for the use case
(its memory floor and precision) and the cards a buyer can use (``BuyerView``), builds every setup
of one card up to ``max_gpus`` identical cards (or exactly ``gpus``), prices it (the cards and,
where the buyer gives it, the machine around them), speeds it up by one scaling rule
(``models/multi_gpu.py``) and answers three questions:

* ``fastest``: the highest throughput within the budget (ties: the cheaper);
* ``best_value``: the most throughput per dollar (with electricity over the ownership horizon when
  the buyer gives a kWh price and hours a day);
* ``cheapest``: the lowest cost that meets the need (ties: the faster).

As the ranking does, the answers compare prices of about one date: they come from the recently
priced cards whenever one of those fits the budget, else from the older prices, said with their age.

Pure: ``budget_answers(rows, scaling, options)`` returns ``BudgetAnswers``; ``answers_json`` is the
one JSON object `gpuvalue recommend --json` writes, and what any other reader of the answers shows.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from gpuvalue.models.framework_support import card_caveat, of_vendor, prefer_cuda_rows
from gpuvalue.models.buyer_view import BuyerView, hidden_because, left_out_summary, row_notes
from gpuvalue.models.multi_gpu import DEFAULT_MAX_GPUS, Scaling, ScalingFacts, assumption_words, setup_scaling
from gpuvalue.models.price_age import age_words, tiers_note
from gpuvalue.models.recommend import (
    MEANINGFULLY_FASTER, STRETCH_BUDGET, USE_CASES, perf_provenance, price_confidence, use_case_floor_words,
    use_case_precision_words,
)
from gpuvalue.models.ownership import DEFAULT_OWNERSHIP_MONTHS
from gpuvalue.models.unpriced import Unpriced

ANSWERS = ("fastest", "best_value", "cheapest")
ANSWER_TITLES = {"fastest": "Fastest", "best_value": "Best value", "cheapest": "Cheapest"}
SINGLE_CARD_USE_CASES = ("beginner", "kaggle")  # one card unless asked: a first card, a notebook's card
POWER_SUPPLY_W = 1600  # the largest common ATX power supply; a 120 V 15 A circuit sustains about 1,440 W
NEW_PRICE_MARGIN = 0.15  # a new card within 15% of the used price is worth naming: warranty, no mining wear


@dataclass(frozen=True)
class AnswerOptions:
    budget_usd: float
    use_case: str | None = None
    min_memory_gb: float | None = None  # asked for; the view's minimum otherwise, the use case's a floor under both
    view: BuyerView = field(default_factory=BuyerView)
    max_gpus: int | None = None  # asked for; else 1 for beginner and kaggle, ``workstation_gpus`` for the rest
    workstation_gpus: int = DEFAULT_MAX_GPUS  # GPUVALUE_MAX_GPUS
    gpus: int | None = None  # a fixed count (--gpus N): every setup has exactly this many cards
    platform_cost_usd: float = 0.0  # the machine around the cards, once per setup
    extra_gpu_cost_usd: float = 0.0  # what each card beyond the first adds to the machine
    kwh_price: float | None = None
    hours_per_day: float | None = None
    ownership_months: float = DEFAULT_OWNERSHIP_MONTHS
    new_price_margin: float = NEW_PRICE_MARGIN
    vendor: str | None = None  # NVIDIA, AMD or Intel: that vendor's cards only (models/framework_support.py)

    def __post_init__(self) -> None:
        if not self.budget_usd > 0:
            raise ValueError("budget_usd must be positive")
        if self.use_case is not None and self.use_case not in USE_CASES:
            raise ValueError(f"unknown use case {self.use_case!r}; choose one of {', '.join(USE_CASES)}")
        for name in ("max_gpus", "gpus"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1")
        if self.workstation_gpus < 1:
            raise ValueError("workstation_gpus must be at least 1")
        if not (self.platform_cost_usd >= 0 and self.extra_gpu_cost_usd >= 0):
            raise ValueError("platform costs must be 0 or more")
        if (self.kwh_price is None) != (self.hours_per_day is None):
            raise ValueError("give both kwh_price and hours_per_day to include electricity, or neither")
        if not self.ownership_months > 0:
            raise ValueError("ownership_months must be positive")

    @property
    def gpu_limit(self) -> int:
        """The most cards a setup has: a fixed count, the one asked for, else the use case's."""
        if self.gpus is not None:
            return self.gpus
        if self.max_gpus is not None:
            return self.max_gpus
        return 1 if self.use_case in SINGLE_CARD_USE_CASES else self.workstation_gpus

    @property
    def counts(self) -> range:
        return range(self.gpus, self.gpus + 1) if self.gpus is not None else range(1, self.gpu_limit + 1)


@dataclass(frozen=True)
class NewPrice:
    price_usd: float
    price_kind: str
    price_n: int
    price_as_of: date | None
    premium: float  # new over used, -0.05 is 5% less than used

    def words(self) -> str:
        dated = f", as of {self.price_as_of.isoformat()}" if isinstance(self.price_as_of, date) else ""
        more = (f"{self.premium:.0%} more than used" if self.premium > 0.005 else
                "no more than used" if self.premium >= -0.005 else f"{-self.premium:.0%} less than used")
        return (f"new: ${self.price_usd:,.0f} a card ({self.price_kind}, {self.price_n} listing"
                f"{'' if self.price_n == 1 else 's'}{dated}), {more}: a warranty and no mining wear")


@dataclass(frozen=True)
class Setup:
    model: str
    gpus: int
    price_usd: float  # one card
    cards_usd: float
    platform_usd: float
    cost_usd: float  # cards and platform
    relative_perf: float  # one card
    throughput: float  # the setup, reference-card units
    throughput_low: float | None
    throughput_high: float | None
    value: float  # throughput per 1000 USD of cost (with electricity over the horizon when counted)
    memory_gb: float | None
    scaling: Scaling
    price_tier: str
    yearly_electricity_usd: float | None
    row: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.gpus}x {self.model}" if self.gpus > 1 else self.model


@dataclass(frozen=True)
class Answer:
    kind: str  # fastest | best_value | cheapest
    setup: Setup | None
    money_left_usd: float | None
    why: str  # why it is the answer, or why there is none
    assumptions: tuple[str, ...]
    new_price: NewPrice | None = None


@dataclass(frozen=True)
class BudgetAnswers:
    options: AnswerOptions
    min_memory_gb: float | None
    max_gpus: int
    precision: str | None
    reference_gpu: str | None
    as_of: date | None
    fastest: Answer
    best_value: Answer
    cheapest: Answer
    stretch: Setup | None  # a setup a little over budget, meaningfully faster than the fastest
    single: Setup | None  # with a fixed count above one: the fastest single card within budget
    assumptions: list[str]
    notes: list[str]
    unpriced: list[Unpriced]
    over_budget: Setup | None = None  # where nothing fits: the cheapest setup, the one the answers' why names

    def answers(self) -> list[Answer]:
        return [self.fastest, self.best_value, self.cheapest]


def memory_floor(options: AnswerOptions) -> tuple[float | None, str]:
    """The memory minimum and whose it is (the use case's where it binds)."""
    preset = USE_CASES.get(options.use_case) if options.use_case else None
    base = options.min_memory_gb if options.min_memory_gb is not None else options.view.min_memory_gb
    floors = [m for m in (base, preset.min_memory_gb if preset else None) if m is not None]
    minimum = max(floors) if floors else None
    binding = preset is not None and preset.min_memory_gb == minimum
    return minimum, f"the {options.use_case} minimum" if binding else "the minimum"


def _usable(row: Mapping[str, Any], view: BuyerView) -> bool:
    return (hidden_because(row, view) is None and bool(row.get("price_usd")) and row["price_usd"] > 0
            and bool(row.get("relative_perf")) and row["relative_perf"] > 0)


def _electricity(row: Mapping[str, Any], gpus: int, options: AnswerOptions) -> float | None:
    tdp = row.get("tdp_w")
    if options.kwh_price is None or options.hours_per_day is None or not tdp:
        return None
    return tdp / 1000.0 * options.hours_per_day * 365 * options.kwh_price * gpus


def _setup(row: Mapping[str, Any], gpus: int, facts: ScalingFacts, options: AnswerOptions) -> Setup:
    scaling = setup_scaling(row["model"], gpus, facts)
    cards = row["price_usd"] * gpus
    platform = options.platform_cost_usd + options.extra_gpu_cost_usd * (gpus - 1)
    cost = cards + platform
    throughput = row["relative_perf"] * gpus * scaling.efficiency
    low, high = row.get("perf_low"), row.get("perf_high")
    scale = gpus * scaling.efficiency
    yearly = _electricity(row, gpus, options)
    spent = cost + (yearly * options.ownership_months / 12.0 if yearly is not None else 0.0)
    return Setup(
        model=row["model"], gpus=gpus, price_usd=row["price_usd"], cards_usd=cards, platform_usd=platform,
        cost_usd=cost, relative_perf=row["relative_perf"], throughput=throughput,
        throughput_low=low * scale if isinstance(low, (int, float)) else None,
        throughput_high=high * scale if isinstance(high, (int, float)) else None,
        value=throughput / spent * 1000.0, memory_gb=row.get("memory_gb"), scaling=scaling,
        price_tier=row.get("price_tier") or "recent", yearly_electricity_usd=yearly, row=row,
    )


def _key(kind: str):
    """Each answer's order: its criterion first, then the other two, then the name (deterministic)."""
    if kind == "fastest":
        return lambda s: (-s.throughput, s.cost_usd, s.gpus, s.model)
    if kind == "best_value":
        return lambda s: (-s.value, -s.throughput, s.cost_usd, s.model)
    return lambda s: (s.cost_usd, -s.throughput, s.gpus, s.model)


def platform_words(options: AnswerOptions) -> str:
    if options.platform_cost_usd == 0 and options.extra_gpu_cost_usd == 0:
        return ("cards only: the machine around them (board, CPU, power supply, case) is not counted; "
                "--platform-cost and --extra-gpu-cost add it")
    parts = []
    if options.platform_cost_usd:
        parts.append(f"${options.platform_cost_usd:,.0f} for the machine around the cards")
    if options.extra_gpu_cost_usd:
        parts.append(f"${options.extra_gpu_cost_usd:,.0f} more for each card beyond the first")
    return "cost counts " + " and ".join(parts)


def _gpu_limit_words(options: AnswerOptions) -> str:
    if options.gpus is not None:
        return f"exactly {options.gpus} card{'s' if options.gpus > 1 else ''} a setup (--gpus)"
    n = options.gpu_limit
    if options.max_gpus is not None:
        why = "as asked (--max-gpus)"
    elif options.use_case in SINGLE_CARD_USE_CASES:
        why = f"one card for {options.use_case} (--max-gpus N compares more)"
    else:
        why = "what a workstation holds (--max-gpus, GPUVALUE_MAX_GPUS)"
    return f"setups of 1 to {n} identical cards: {why}" if n > 1 else f"one card: {why}"


def dated_price_words(setup: Setup) -> str:
    """How a setup's card price was found and when, with its age where it is stale or of the older tier:
    every line that names a price says this, so an old price never reads as today's."""
    row = setup.row
    _, price_words = price_confidence(row)
    age = row.get("price_age_days")
    older = f" ({age_words(age)} old)" if (row.get("price_tier") == "older" or row.get("stale")) and age is not None else ""
    return f"{price_words}{older}"


def priced_words(setup: Setup) -> str:
    """``price: ...`` (``price $X a card: ...`` for several cards): a named setup's price basis and date."""
    card_price = f" ${setup.price_usd:,.0f} a card" if setup.gpus > 1 else ""
    return f"price{card_price}: {dated_price_words(setup)}"


def _setup_reason(setup: Setup, minimum: float | None, basis: str) -> str:
    row = setup.row
    memory = setup.memory_gb
    each = " per card" if setup.gpus > 1 else ""
    if memory is None:
        fit = "memory unknown"
    elif minimum is not None:
        fit = f"{memory:g} GB{each} meets {basis} of {minimum:g} GB"
    else:
        fit = f"{memory:g} GB{each}"
    level, _ = price_confidence(row)
    speed = perf_provenance(row)
    parts = [f"{setup.value:.2f} perf per $1k", fit]
    if speed:
        parts.append(speed)
    card_price = f"${setup.price_usd:,.0f} a card, " if setup.gpus > 1 else ""
    parts.append(f"price {card_price}{level} confidence: {dated_price_words(setup)}")
    parts.extend(row_notes(row))
    return "; ".join(parts)


def _answer_assumptions(setup: Setup, shared: list[str], options: AnswerOptions) -> tuple[str, ...]:
    """What this answer assumed: the shared assumptions and its own scaling, memory and power."""
    own = []
    if setup.gpus > 1:
        own.append(f"scaling {setup.scaling.efficiency:.0%} per card, {setup.scaling.words}")
        memory = f"{setup.memory_gb:g} GB" if setup.memory_gb is not None else "its own memory"
        own.append(f"each card still holds only {memory}: the work must split across the cards (data parallel)")
        tdp = setup.row.get("tdp_w")
        if tdp and tdp * setup.gpus > POWER_SUPPLY_W:
            own.append(f"{setup.gpus} x {tdp:g} W = {tdp * setup.gpus:,.0f} W of board power: more than one "
                       f"{POWER_SUPPLY_W:,} W power supply gives, and at 120 V more than a 15 A circuit sustains")
    if (caveat := card_caveat(setup.row)) is not None:
        own.append(caveat)
    if setup.yearly_electricity_usd is not None:
        own.append(f"electricity ${setup.yearly_electricity_usd:,.0f} a year, counted over "
                   f"{options.ownership_months:g} months in its value")
    return tuple(shared + own)


def own_assumptions(answer: Answer) -> list[str]:
    """The assumptions that are the answer's setup's own, as the text prints them under it: its scaling,
    its memory per card, its power and the framework caveat of an AMD or Intel card."""
    s = answer.setup
    if s is None:
        return []
    return [words for words in answer.assumptions
            if words.startswith(("scaling ", "each card still", f"{s.gpus} x ", "AMD card", "Intel card"))]


def usd_words(value: float) -> str:
    """``$1,234``: a dollar figure as every text answer rounds it (half to even), the page included."""
    return f"${value:,.0f}"


def _new_price(setup: Setup, new_prices: Mapping[str, Mapping[str, Any]], margin: float) -> NewPrice | None:
    new = new_prices.get(setup.model)
    if not new or not new.get("price_usd") or new["price_usd"] <= 0:
        return None
    premium = new["price_usd"] / setup.price_usd - 1.0
    if premium > margin:
        return None
    return NewPrice(price_usd=float(new["price_usd"]), price_kind=str(new.get("price_kind") or "unknown"),
                    price_n=int(new.get("price_n") or 0), price_as_of=new.get("price_as_of"), premium=premium)


def _within(a: Setup, b: Setup) -> bool:
    """Each setup's throughput lies in the other's interval: the evidence does not tell them apart."""
    if a.throughput_low is None or a.throughput_high is None or b.throughput_low is None or b.throughput_high is None:
        return False
    return a.throughput_low <= b.throughput <= a.throughput_high and b.throughput_low <= a.throughput <= b.throughput_high


def budget_answers(
    rows: Iterable[Mapping[str, Any]],
    scaling: ScalingFacts,
    options: AnswerOptions,
    *,
    new_prices: Mapping[str, Mapping[str, Any]] | None = None,
    unpriced: Iterable[Unpriced] = (),
) -> BudgetAnswers:
    """The fastest, best-value and cheapest setups ``options.budget_usd`` buys from ``rows``.

    ``rows``: the day's ranking (``ranking_daily`` columns; ``perf_low``/``perf_high`` used where
    present). ``scaling``: the measured multi-GPU efficiencies and the one assumption for the rest.
    ``new_prices``: model -> the ``new_card_prices`` row, shown beside a used price where new costs
    at most ``options.new_price_margin`` more. ``unpriced``: the likely candidates without a price
    (``models/unpriced.py``), named in the answer."""
    rows = list(rows)
    new_prices = new_prices or {}
    minimum, basis = memory_floor(options)
    view = replace(options.view, min_memory_gb=minimum)
    shared: list[str] = []
    if options.use_case:
        shared.append(use_case_floor_words(options.use_case))
        precisions = {row.get("perf_precision") for row in rows}
        wanted = USE_CASES[options.use_case].precision
        if wanted in precisions:
            rows = [row for row in rows if row.get("perf_precision") == wanted]
        elif (words := use_case_precision_words(options.use_case, precisions)) is not None:
            shared.append(words)
    elif minimum is not None:
        shared.append(f"at least {minimum:g} GB a card (--min-memory, GPUVALUE_MIN_MEMORY_GB)")
    shared.append(_gpu_limit_words(options))
    if options.gpu_limit > 1:
        shared.append(f"multi-GPU speed: {assumption_words(scaling)}")
    shared.append(platform_words(options))
    if options.kwh_price is not None:
        shared.append(f"electricity: full board power {options.hours_per_day:g} h/day at ${options.kwh_price:g}/kWh, "
                      f"counted over {options.ownership_months:g} months of ownership (GPUVALUE_OWNERSHIP_MONTHS)")

    usable = of_vendor([row for row in rows if _usable(row, view)], options.vendor)
    if options.vendor is not None:
        shared.append(f"{options.vendor} cards only (--vendor)")
    smallest = min(options.counts)
    usable, cuda_words = prefer_cuda_rows(
        usable, options.use_case, options.vendor,
        lambda row: _setup(row, smallest, scaling, options).cost_usd <= options.budget_usd + 1e-9)
    if cuda_words:
        shared.append(cuda_words)
    setups = [_setup(row, n, scaling, options) for row in usable for n in options.counts]
    affordable = [s for s in setups if s.cost_usd <= options.budget_usd + 1e-9]
    tier = "recent" if any(s.price_tier == "recent" for s in affordable) else "older"
    chosen = [s for s in affordable if s.price_tier == tier]

    answers: dict[str, Answer] = {}
    for kind in ANSWERS:
        if not chosen:
            answers[kind] = Answer(kind, None, None, _none_why(setups, options, minimum), tuple(shared))
            continue
        best = min(chosen, key=_key(kind))
        answers[kind] = Answer(
            kind, best, options.budget_usd - best.cost_usd, _setup_reason(best, minimum, basis),
            _answer_assumptions(best, shared, options), _new_price(best, new_prices, options.new_price_margin),
        )

    fastest = answers["fastest"].setup
    stretch = None
    if fastest is not None or setups:
        floor = fastest.throughput * MEANINGFULLY_FASTER if fastest else 0.0
        over = [s for s in setups if options.budget_usd < s.cost_usd <= options.budget_usd * STRETCH_BUDGET
                and s.throughput >= floor and (fastest is None or s.price_tier == fastest.price_tier)]
        stretch = min(over, key=_key("cheapest")) if over else None

    single = None
    notes: list[str] = []
    if options.gpus is not None and options.gpus > 1:
        singles = [_setup(row, 1, scaling, options) for row in usable]
        singles = [s for s in singles if s.cost_usd <= options.budget_usd and s.price_tier == tier]
        single = min(singles, key=_key("fastest")) if singles else None
        if fastest and single:
            notes.append(_versus_single(fastest, single))

    picked = [a.setup for a in answers.values() if a.setup is not None]
    for i, a in enumerate(ANSWERS):
        for b in ANSWERS[i + 1:]:
            sa, sb = answers[a].setup, answers[b].setup
            if sa and sb and (sa.model, sa.gpus) != (sb.model, sb.gpus) and _within(sa, sb):
                notes.append(f"{ANSWER_TITLES[a].lower()} ({sa.label}, {sa.throughput:.2f}x) and "
                             f"{ANSWER_TITLES[b].lower()} ({sb.label}, {sb.throughput:.2f}x) are "
                             "within each other's interval: the evidence does not tell their speeds apart")
    if any(s.price_tier == "older" for s in picked):
        note = tiers_note([{"price_tier": s.price_tier, "price_age_days": s.row.get("price_age_days")} for s in picked])
        if note:
            notes.append(note.replace("card(s)", "answer(s)", 1))
    elif picked and any(row.get("price_tier") == "older" for row in usable):
        older = sum(1 for row in usable if row.get("price_tier") == "older")
        notes.append(f"{older} usable card(s) priced only long before the newest price are not compared with these "
                     "(`gpuvalue rank` shows them apart, with their age)")
    left_out = left_out_summary(rows, view)
    if left_out:
        notes.append(left_out)

    over_budget = min(setups, key=_key("cheapest")) if setups and not chosen else None
    first = rows[0] if rows else {}
    return BudgetAnswers(
        options=options, min_memory_gb=minimum, max_gpus=options.gpu_limit,
        precision=first.get("perf_precision"), reference_gpu=first.get("reference_gpu"), as_of=first.get("as_of"),
        fastest=answers["fastest"], best_value=answers["best_value"], cheapest=answers["cheapest"],
        stretch=stretch, single=single, assumptions=shared, notes=notes, unpriced=list(unpriced),
        over_budget=over_budget,
    )


def _none_why(setups: list[Setup], options: AnswerOptions, minimum: float | None) -> str:
    need = f" with at least {minimum:g} GB a card" if minimum is not None else ""
    if not setups:
        return f"no ranked card{need} is usable today"
    cheapest = min(setups, key=_key("cheapest"))
    return (f"nothing{need} fits ${options.budget_usd:,.0f}: the cheapest setup is {cheapest.label} "
            f"at ${cheapest.cost_usd:,.0f}, {priced_words(cheapest)}")


def _versus_single(many: Setup, single: Setup) -> str:
    if many.throughput > single.throughput * 1.05:
        return (f"{many.label} gives {many.throughput / single.throughput:.2f}x the throughput of one {single.model} "
                f"for ${many.cost_usd:,.0f} vs ${single.cost_usd:,.0f}, if the work splits across cards (each card "
                f"still holds only {many.memory_gb:g} GB)")
    close = "as fast as or faster than" if single.throughput >= many.throughput else "within 5% of"
    return (f"one {single.model} is {close} {many.label} ({single.throughput:.2f}x vs {many.throughput:.2f}x) "
            "and avoids multi-GPU overhead")


# --- the one JSON object: what `recommend --json` writes and a page shows -----------------------------


def _setup_json(setup: Setup) -> dict[str, Any]:
    row = setup.row
    level, price_words = price_confidence(row)
    return {
        "model": setup.model, "gpus": setup.gpus, "cost_usd": round(setup.cost_usd, 2),
        "cards_usd": round(setup.cards_usd, 2), "platform_usd": round(setup.platform_usd, 2),
        "price_usd": setup.price_usd, "throughput": round(setup.throughput, 4),
        "throughput_low": _round(setup.throughput_low), "throughput_high": _round(setup.throughput_high),
        "relative_perf": round(setup.relative_perf, 4), "perf_per_1000_usd": round(setup.value, 4),
        "scaling_efficiency": round(setup.scaling.efficiency, 4), "scaling_measured": setup.scaling.measured,
        "memory_gb": setup.memory_gb, "perf_source": row.get("perf_source"), "speed": perf_provenance(row) or None,
        "price_kind": row.get("price_kind"), "price_n": row.get("price_n"), "price_as_of": row.get("price_as_of"),
        "price_age_days": row.get("price_age_days"), "price_tier": setup.price_tier, "stale": row.get("stale"),
        "price_confidence": level, "price_basis": price_words,
        "price_age": age_words(row["price_age_days"]) if row.get("price_age_days") is not None else None,
        "price_words": dated_price_words(setup),
        "yearly_electricity_usd": _round(setup.yearly_electricity_usd), "notes": row_notes(row),
    }


def _round(value: float | None, digits: int = 4) -> float | None:
    return round(value, digits) if value is not None else None


EMPTY_SETUP: dict[str, Any] = {"model": None, "gpus": None, "cost_usd": None, "throughput": None}


def answer_json(answer: Answer) -> dict[str, Any]:
    """One answer: ``model``, ``gpus``, ``cost_usd``, ``throughput``, ``money_left_usd``, ``assumptions``
    and ``why`` always; the setup's fields null where no setup qualifies."""
    body = _setup_json(answer.setup) if answer.setup is not None else dict(EMPTY_SETUP)
    body["money_left_usd"] = round(answer.money_left_usd, 2) if answer.money_left_usd is not None else None
    body["new_price"] = None if answer.new_price is None else {
        "price_usd": answer.new_price.price_usd, "price_kind": answer.new_price.price_kind,
        "price_n": answer.new_price.price_n, "price_as_of": answer.new_price.price_as_of,
        "premium": round(answer.new_price.premium, 4),
    }
    body["assumptions"] = list(answer.assumptions)
    body["why"] = answer.why
    body["money_left_text"] = usd_words(answer.money_left_usd) if answer.money_left_usd is not None else None
    body["setup_assumptions"] = own_assumptions(answer)
    return body


def answers_json(result: BudgetAnswers) -> dict[str, Any]:
    """The answers as one JSON-ready object (dates stay dates; the writer makes them ISO text)."""
    o = result.options
    return {
        "as_of": result.as_of, "budget_usd": o.budget_usd, "use_case": o.use_case,
        "min_memory_gb": result.min_memory_gb, "precision": result.precision, "reference_gpu": result.reference_gpu,
        "max_gpus": result.max_gpus, "gpus": o.gpus,
        "platform_cost_usd": o.platform_cost_usd, "extra_gpu_cost_usd": o.extra_gpu_cost_usd,
        "ownership_months": o.ownership_months,
        **{kind: answer_json(getattr(result, kind)) for kind in ANSWERS},
        "stretch": _setup_json(result.stretch) if result.stretch else None,
        "single": _setup_json(result.single) if result.single else None,
        "cheapest_over_budget": _setup_json(result.over_budget) if result.over_budget else None,
        "unpriced": [u.as_dict() for u in result.unpriced],
        "assumptions": list(result.assumptions),
        "notes": list(result.notes),
    }
