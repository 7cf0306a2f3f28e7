"""What a budget buys: the fastest setup, the best value and the cheapest setup that meets the need.

A buyer with a budget asks for the fastest training the money buys; the ranking's order (speed
per dollar) answers another question. So this builds, once, the table of candidate setups
(``candidate_table``): every priced card the buyer's view allows, alone and as 2 to ``max_gpus``
identical cards, each a real build (``models/builds.py``: the machine around the cards by card count,
the system's power within one supply and one household circuit, the cards' slot widths), sped up by
one scaling rule (``models/multi_gpu.py``), and never N cards slower than fewer of the same card.
Every priced card competes whatever its price's age: an old price widens the setup's price interval
and says to verify it. ``models/choose.py``'s one rule then answers three questions:

* ``fastest``: the highest throughput within the budget (ties: the cheaper);
* ``best_value``: the most throughput per dollar (with electricity over the ownership horizon when
  the buyer gives a kWh price and hours a day);
* ``cheapest``: the lowest cost that meets the need (ties: the faster).

Pure: ``budget_answers(rows, scaling, options)`` returns ``BudgetAnswers``; ``answers_json`` is the
one JSON object `gpuvalue recommend --json` writes, and what any other reader of the answers shows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from gpuvalue.models.builds import DEFAULT_POWER_LIMIT_W, Build, PlatformCosts, build, power_rule_words, slot_width
from gpuvalue.models.buyer_view import BuyerView, hidden_because, left_out_summary, row_notes
from gpuvalue.models.choose import Query, choose, eligible, setup_floor
from gpuvalue.models.finetune_memory import FinetuneMemory
from gpuvalue.models.framework_support import card_caveat, has_current_cuda, stack_support
from gpuvalue.models.matrix_units import has_matrix_units
from gpuvalue.models.speed_evidence import speed_evidence
from gpuvalue.models.multi_gpu import DEFAULT_MAX_GPUS, Scaling, ScalingFacts, assumption_words, setup_scaling
from gpuvalue.models.ownership import DEFAULT_OWNERSHIP_MONTHS
from gpuvalue.models.price_age import DEFAULT_COMPARABLE_DAYS, age_words
from gpuvalue.models.recommend import (
    MEANINGFULLY_FASTER, STRETCH_BUDGET, USE_CASES, perf_provenance, price_confidence, use_case_floor_words,
    use_case_precision_words,
)
from gpuvalue.models.support_tables import support_level
from gpuvalue.models.unpriced import Unpriced

ANSWERS = ("fastest", "best_value", "cheapest")
ANSWER_TITLES = {"fastest": "Fastest", "best_value": "Best value", "cheapest": "Cheapest"}
SINGLE_CARD_USE_CASES = ("beginner", "kaggle")  # one card unless asked: a first card, a notebook's card
NEW_PRICE_MARGIN = 0.15  # a new card within 15% of the used price is worth naming: warranty, no mining wear
PRICE_DRIFT_PER_YEAR = 0.15  # an old used price may be this far off a year later, either way
PRICE_DRIFT_MAX = 0.5
AMPERE_OR_NEWER = re.compile(r"^(ampere|ada|hopper|blackwell)", re.IGNORECASE)


@dataclass(frozen=True)
class AnswerOptions:
    budget_usd: float
    use_case: str | None = None
    min_memory_gb: float | None = None  # asked for; the view's minimum otherwise, the use case's a floor under both
    view: BuyerView = field(default_factory=BuyerView)
    max_gpus: int | None = None  # asked for; else 1 for beginner and kaggle, ``workstation_gpus`` for the rest
    workstation_gpus: int = DEFAULT_MAX_GPUS  # GPUVALUE_MAX_GPUS
    gpus: int | None = None  # a fixed count (--gpus N): every setup has exactly this many cards
    platform_cost_usd: float | None = None  # the buyer's own machine cost, once per setup (--platform-cost)
    extra_gpu_cost_usd: float | None = None  # what each card beyond the first adds to it (--extra-gpu-cost)
    platform_two_gpus_usd: float = PlatformCosts.two_cards_usd  # GPUVALUE_PLATFORM_TWO_GPUS_USD
    platform_workstation_usd: float = PlatformCosts.workstation_usd  # GPUVALUE_PLATFORM_WORKSTATION_USD
    power_limit_w: float = DEFAULT_POWER_LIMIT_W  # GPUVALUE_POWER_LIMIT_W
    kwh_price: float | None = None
    hours_per_day: float | None = None
    ownership_months: float = DEFAULT_OWNERSHIP_MONTHS
    new_price_margin: float = NEW_PRICE_MARGIN
    vendor: str | None = None  # NVIDIA, AMD or Intel: that vendor's cards only (models/framework_support.py)
    finetune: FinetuneMemory | None = None  # --model-params/--method: a memory floor (models/finetune_memory.py)

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
        costs = (self.platform_cost_usd, self.extra_gpu_cost_usd, self.platform_two_gpus_usd,
                 self.platform_workstation_usd)
        if not all(c is None or c >= 0 for c in costs):
            raise ValueError("platform costs must be 0 or more")
        if not self.power_limit_w > 0:
            raise ValueError("power_limit_w must be positive")
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

    @property
    def table_gpus(self) -> int:
        """The most cards a setup of the candidate table has: whatever the use case, so that one table answers all."""
        return max(self.gpu_limit, self.workstation_gpus)

    @property
    def platforms(self) -> PlatformCosts:
        custom = self.platform_cost_usd is not None or self.extra_gpu_cost_usd is not None
        return PlatformCosts(two_cards_usd=self.platform_two_gpus_usd, workstation_usd=self.platform_workstation_usd,
                             custom_base_usd=(self.platform_cost_usd or 0.0) if custom else None,
                             custom_extra_usd=self.extra_gpu_cost_usd or 0.0)


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
    platform_usd: float  # the machine around the cards and, in a riser build, the risers
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
    build: Build | None = None
    price_low_usd: float | None = None  # one card: the price's quartiles, widened for its age
    price_high_usd: float | None = None
    price_drift: float = 0.0  # how far the price's age widens it, either way
    vendor: str | None = None
    row: Mapping[str, Any] = field(repr=False, compare=False, default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.gpus}x {self.model}" if self.gpus > 1 else self.model

    @property
    def system_power_w(self) -> float | None:
        return self.build.system_power_w if self.build else None

    def candidate(self) -> dict[str, Any]:
        """The setup as ``models/choose.py`` (and the page) reads it: what the rule needs, nothing rounded."""
        support = stack_support(self.row)
        return {"model": self.model, "vendor": self.vendor, "gpus": self.gpus, "cost_usd": self.cost_usd,
                "throughput": self.throughput, "value": self.value, "memory_gb": self.memory_gb,
                "legacy": support_level(self.row) == "legacy", "supported": support.linux == "supported",
                "runs": support.linux != "none", "ampere_cuda": is_ampere_cuda(self.row),
                "matrix_cores": has_matrix_units(self.row)}


@dataclass(frozen=True)
class Answer:
    kind: str  # fastest | best_value | cheapest
    setup: Setup | None
    money_left_usd: float | None
    why: str  # why it is the answer, or why there is none
    assumptions: tuple[str, ...]
    new_price: NewPrice | None = None
    own: tuple[str, ...] = ()  # the setup's own assumptions: scaling, memory, build, framework, price's age
    sharding: str | None = None  # fine-tuning on several cards: how the need divides across them


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
    table: list[Setup] = field(default_factory=list, repr=False)  # every candidate setup

    def answers(self) -> list[Answer]:
        return [self.fastest, self.best_value, self.cheapest]


def is_ampere_cuda(row: Mapping[str, Any]) -> bool:
    """An NVIDIA card of Ampere or newer that the current CUDA wheels run: bf16 and FlashAttention-2."""
    if not has_current_cuda(row):
        return False
    try:
        return float(str(row.get("compute_capability"))) >= 8.0
    except ValueError:
        return bool(AMPERE_OR_NEWER.match(str(row.get("architecture") or "").strip()))


def memory_floor(options: AnswerOptions) -> tuple[float | None, str]:
    """The memory minimum and whose it is (the fine-tuning need's or the use case's where it binds):
    the highest of --min-memory (else the view's), the use case's and the fine-tuning need's."""
    preset = USE_CASES.get(options.use_case) if options.use_case else None
    base = options.min_memory_gb if options.min_memory_gb is not None else options.view.min_memory_gb
    tuning = options.finetune.floor_gb if options.finetune is not None else None
    floors = [m for m in (base, preset.min_memory_gb if preset else None, tuning) if m is not None]
    minimum = max(floors) if floors else None
    if tuning is not None and tuning == minimum:
        return minimum, "the fine-tuning need"
    binding = preset is not None and preset.min_memory_gb == minimum
    return minimum, f"the {options.use_case} minimum" if binding else "the minimum"


def count_floor(options: AnswerOptions) -> float | None:
    """The floor whatever the card count: the highest of --min-memory (else the view's) and the use case's."""
    preset = USE_CASES.get(options.use_case) if options.use_case else None
    base = options.min_memory_gb if options.min_memory_gb is not None else options.view.min_memory_gb
    floors = [m for m in (base, preset.min_memory_gb if preset else None) if m is not None]
    return max(floors) if floors else None


def query(options: AnswerOptions) -> Query:
    """The question ``choose`` answers for these options: the fine-tuning need a card at each card count
    (sharded across the cards) beside the floor that holds at any count."""
    tuning = options.finetune.floors(options.table_gpus) if options.finetune is not None else ()
    return Query(budget_usd=options.budget_usd, min_memory_gb=count_floor(options), vendor=options.vendor,
                 use_case=options.use_case, max_gpus=options.gpu_limit, gpus=options.gpus,
                 include_legacy=options.view.include_legacy, memory_by_gpus=tuning)


def least_floor(options: AnswerOptions) -> float | None:
    """The least memory a card of any allowed setup needs: what a card must have to take part in an answer."""
    asked = query(options)
    floors = [setup_floor(asked, n) for n in options.counts]
    known = [f for f in floors if f is not None]
    return min(known) if known else None


def _table_view(view: BuyerView) -> BuyerView:
    """The view the candidate table is built with: the memory floor and legacy builds are the rule's to apply."""
    return replace(view, min_memory_gb=None, include_legacy=True)


def _usable(row: Mapping[str, Any], view: BuyerView) -> bool:
    return (hidden_because(row, _table_view(view)) is None and bool(row.get("price_usd")) and row["price_usd"] > 0
            and bool(row.get("relative_perf")) and row["relative_perf"] > 0)


def _electricity(row: Mapping[str, Any], gpus: int, options: AnswerOptions, card_w: float | None) -> float | None:
    if options.kwh_price is None or options.hours_per_day is None or not card_w:
        return None
    return card_w / 1000.0 * options.hours_per_day * 365 * options.kwh_price * gpus


def price_interval(row: Mapping[str, Any]) -> tuple[float, float, float]:
    """One card's price interval: its quartiles (the price where they are missing), widened by
    ``PRICE_DRIFT_PER_YEAR`` of its age where it is older than the price window, up to ``PRICE_DRIFT_MAX``."""
    price = float(row["price_usd"])
    q1, q3 = row.get("price_q1"), row.get("price_q3")
    low = min(price, float(q1)) if isinstance(q1, (int, float)) else price
    high = max(price, float(q3)) if isinstance(q3, (int, float)) else price
    age = row.get("price_age_days")
    old = bool(row.get("stale") or row.get("price_tier") == "older")
    drift = min(PRICE_DRIFT_MAX, PRICE_DRIFT_PER_YEAR * age / 365.25) if old and isinstance(age, (int, float)) else 0.0
    return low * (1 - drift), high * (1 + drift), drift


def _setup(row: Mapping[str, Any], gpus: int, facts: ScalingFacts, options: AnswerOptions) -> Setup | None:
    """``gpus`` cards of ``row`` as a build, or None where no build within the power limit runs them."""
    made = build(gpus, board_w=row.get("tdp_w"), width=slot_width(row.get("slot_width")), costs=options.platforms,
                 power_limit_w=options.power_limit_w)
    if made is None:
        return None
    scaling = setup_scaling(row["model"], gpus, facts, row.get("segment"))
    cards = row["price_usd"] * gpus
    platform = made.platform_usd + made.riser_usd
    cost = cards + platform
    scale = gpus * scaling.efficiency * made.speed
    throughput = row["relative_perf"] * scale
    low, high = row.get("perf_low"), row.get("perf_high")
    low = low if isinstance(low, (int, float)) else row["relative_perf"]
    high = high if isinstance(high, (int, float)) else row["relative_perf"]
    eff_low = scaling.low if scaling.low is not None else scaling.efficiency
    eff_high = scaling.high if scaling.high is not None else scaling.efficiency
    yearly = _electricity(row, gpus, options, made.card_power_w)
    spent = cost + (yearly * options.ownership_months / 12.0 if yearly is not None else 0.0)
    price_low, price_high, drift = price_interval(row)
    return Setup(
        model=row["model"], gpus=gpus, price_usd=row["price_usd"], cards_usd=cards, platform_usd=platform,
        cost_usd=cost, relative_perf=row["relative_perf"], throughput=throughput,
        throughput_low=low * gpus * eff_low * made.speed, throughput_high=high * gpus * eff_high * made.speed,
        value=throughput / spent * 1000.0, memory_gb=row.get("memory_gb"), scaling=scaling,
        price_tier=row.get("price_tier") or "recent", yearly_electricity_usd=yearly, build=made,
        price_low_usd=price_low, price_high_usd=price_high, price_drift=drift, vendor=row.get("vendor"), row=row,
    )


def candidate_table(rows: Iterable[Mapping[str, Any]], scaling: ScalingFacts, options: AnswerOptions) -> list[Setup]:
    """Every buildable setup of every usable card, 1 to ``options.table_gpus`` cards; a count that trains
    no faster than a smaller count of the same card is left out."""
    table = []
    for row in rows:
        if not _usable(row, options.view):
            continue
        best = 0.0
        for n in range(1, options.table_gpus + 1):
            setup = _setup(row, n, scaling, options)
            if setup is None or setup.throughput <= best + 1e-12:
                continue
            best = setup.throughput
            table.append(setup)
    return table


def _key(kind: str):
    """Each answer's order: its criterion first, then the other two, then the name (deterministic)."""
    if kind == "fastest":
        return lambda s: (-s.throughput, s.cost_usd, s.gpus, s.model)
    if kind == "best_value":
        return lambda s: (-s.value, -s.throughput, s.cost_usd, s.gpus, s.model)
    return lambda s: (s.cost_usd, -s.throughput, s.gpus, s.model)


def platform_words(options: AnswerOptions) -> str:
    return options.platforms.words()


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
    """How a setup's card price was found and when, with its age where it is stale or older: every line
    that names a price says this, so an old price never reads as today's."""
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


def setup_own_words(setup: Setup) -> list[str]:
    """What a setup assumes of its own, as the text prints under it and the page shows with it: its
    scaling, its memory a card, its build (power, slots), its stack's caveat and its price's age."""
    own = []
    if setup.gpus > 1:
        own.append(f"scaling {setup.scaling.efficiency:.0%} per card, {setup.scaling.words}")
        memory = f"{setup.memory_gb:g} GB" if setup.memory_gb is not None else "its own memory"
        own.append(f"each card still holds only {memory}: the work must split across the cards (data parallel, "
                   "or sharded with FSDP or ZeRO-3)")
    if setup.build is not None:
        if setup.gpus > 1 or setup.build.platform_usd:
            own.append(f"machine: {setup.build.platform} (${setup.build.platform_usd:,.0f} counted)")
        own.extend(setup.build.words(setup.row.get("tdp_w"), setup.vendor))
    if (caveat := card_caveat(setup.row)) is not None:
        own.append(caveat)
    if setup.price_drift > 0 and setup.price_low_usd is not None and setup.price_high_usd is not None:
        own.append(f"verify the price: {dated_price_words(setup)}; for its age it may be "
                   f"${setup.price_low_usd:,.0f}-${setup.price_high_usd:,.0f} a card today "
                   f"(±{setup.price_drift:.0%})")
    return own


def own_assumptions(answer: Answer) -> list[str]:
    """The assumptions that are the answer's setup's own (``setup_own_words``)."""
    return list(answer.own)


def usd_words(value: float) -> str:
    """``$1,234``: a dollar figure as every text answer rounds it (half to even), the page included."""
    return f"${value:,.0f}"


def _new_price(setup: Setup, new_prices: Mapping[str, Mapping[str, Any]], margin: float) -> NewPrice | None:
    new = new_prices.get(setup.model)
    if not new or not new.get("price_usd") or new["price_usd"] <= 0:
        return None
    if not _comparable_dates(new.get("price_as_of"), setup.row.get("price_as_of")):
        return None  # a new price from before the used one moved (2025's RTX 5090 at MSRP) says nothing of today's
    premium = new["price_usd"] / setup.price_usd - 1.0
    if premium > margin:
        return None
    return NewPrice(price_usd=float(new["price_usd"]), price_kind=str(new.get("price_kind") or "unknown"),
                    price_n=int(new.get("price_n") or 0), price_as_of=new.get("price_as_of"), premium=premium)


def _comparable_dates(new_as_of: Any, used_as_of: Any) -> bool:
    """A new card's price compares with the used one only where it is no older than the comparable window
    (``DEFAULT_COMPARABLE_DAYS``) before it; an undated one never does."""
    def day(value: Any) -> date | None:
        if isinstance(value, date):
            return value
        try:
            return date.fromisoformat(str(value)[:10]) if value else None
        except ValueError:
            return None

    new_day, used_day = day(new_as_of), day(used_as_of)
    if new_day is None or used_day is None:
        return False
    return (used_day - new_day).days <= DEFAULT_COMPARABLE_DAYS


def _within(a: Setup, b: Setup) -> bool:
    """Each setup's throughput lies in the other's interval: the evidence does not tell them apart."""
    if (a.throughput_low is None or a.throughput_high is None or b.throughput_low is None
            or b.throughput_high is None):
        return False
    return a.throughput_low <= b.throughput <= a.throughput_high and b.throughput_low <= a.throughput <= b.throughput_high


def framework_words(options: AnswerOptions, rows: list[Mapping[str, Any]]) -> str | None:
    """What the default filter of software stacks left out, or what --vendor allows."""
    usable = [r for r in rows if _usable(r, options.view)]
    if options.vendor is not None:
        return None
    unsupported = sorted({r["model"] for r in usable if stack_support(r).linux != "supported"})
    if not unsupported:
        return None
    return (f"cards whose stack is supported on Linux only: {len(unsupported)} card(s) that ROCm or PyTorch's XPU "
            "builds do not list are left out (--vendor AMD or Intel shows them, with their caveat)")


def beginner_words(options: AnswerOptions) -> str | None:
    if options.use_case != "beginner" or (options.vendor or "nvidia").lower() != "nvidia":
        return None
    return ("beginner: an Ampere or newer NVIDIA card only: bf16 and FlashAttention-2 need it, and tutorials assume "
            "CUDA (--vendor AMD or Intel asks otherwise)")


def budget_answers(
    rows: Iterable[Mapping[str, Any]],
    scaling: ScalingFacts,
    options: AnswerOptions,
    *,
    new_prices: Mapping[str, Mapping[str, Any]] | None = None,
    unpriced: Iterable[Unpriced] = (),
) -> BudgetAnswers:
    """The fastest, best-value and cheapest setups ``options.budget_usd`` buys from ``rows``.

    ``rows``: the day's ranking (``ranking_daily`` columns; ``perf_low``/``perf_high``, ``slot_width`` and
    ``compute_capability`` used where present). ``scaling``: the measured multi-GPU efficiencies and their
    class medians. ``new_prices``: model -> the ``new_card_prices`` row, shown beside a used price where new
    costs at most ``options.new_price_margin`` more. ``unpriced``: the likely candidates without a price
    (``models/unpriced.py``), named in the answer."""
    rows = list(rows)
    new_prices = new_prices or {}
    minimum, basis = memory_floor(options)
    view = replace(options.view, min_memory_gb=least_floor(options))  # a card of any allowed setup
    shared: list[str] = []
    if options.use_case:
        shared.append(use_case_floor_words(options.use_case))
        precisions = {row.get("perf_precision") for row in rows}
        wanted = USE_CASES[options.use_case].precision
        if wanted in precisions:
            rows = [row for row in rows if row.get("perf_precision") == wanted]
        elif (words := use_case_precision_words(options.use_case, precisions)) is not None:
            shared.append(words)
    elif minimum is not None and basis != "the fine-tuning need":
        shared.append(f"at least {minimum:g} GB a card (--min-memory, GPUVALUE_MIN_MEMORY_GB)")
    if options.finetune is not None:
        shared.append(options.finetune.words(max(options.counts)) + (
            "" if basis == "the fine-tuning need" else f"; the floor of {minimum:g} GB is higher"))
    shared.append(_gpu_limit_words(options))
    if options.gpu_limit > 1:
        shared.append(f"multi-GPU speed: {assumption_words(scaling)}")
    shared.append(platform_words(options))
    shared.append(power_rule_words(options.power_limit_w))
    shared.append(f"every priced card competes whatever its price's age: a price older than the price window may be "
                  f"±{PRICE_DRIFT_PER_YEAR:.0%} a year off (up to ±{PRICE_DRIFT_MAX:.0%}), said with it")
    if options.kwh_price is not None:
        shared.append(f"electricity: the cards' power {options.hours_per_day:g} h/day at ${options.kwh_price:g}/kWh, "
                      f"counted over {options.ownership_months:g} months of ownership (GPUVALUE_OWNERSHIP_MONTHS)")
    if options.vendor is not None:
        shared.append(f"{options.vendor} cards only (--vendor)")
    for words in (framework_words(options, rows), beginner_words(options)):
        if words:
            shared.append(words)

    table = candidate_table(rows, scaling, options)
    by_key = {(s.model, s.gpus): s for s in table}
    candidates = [s.candidate() for s in table]
    asked = query(options)
    picked = choose(candidates, asked)
    need = [by_key[(c["model"], c["gpus"])] for c in candidates if eligible(c, asked)]

    answers: dict[str, Answer] = {}
    for kind in ANSWERS:
        chosen = picked[kind]
        if chosen is None:
            answers[kind] = Answer(kind, None, None, _none_why(need, options, least_floor(options)), tuple(shared))
            continue
        best = by_key[(chosen["model"], chosen["gpus"])]
        own = setup_own_words(best)
        extra = []
        sharding = None
        if options.finetune is not None and best.gpus > 1:
            sharding = (f"fine-tuning on {best.gpus} cards: FSDP or ZeRO-3 shards the weights, gradients and "
                        f"optimizer state across them, {options.finetune.on(best.gpus).floor_gb:g} GB a card "
                        f"(one card would need {options.finetune.floor_gb:g} GB)")
            extra.append(sharding)
        if best.yearly_electricity_usd is not None:
            extra.append(f"electricity ${best.yearly_electricity_usd:,.0f} a year, counted over "
                         f"{options.ownership_months:g} months in its value")
        answers[kind] = Answer(
            kind, best, options.budget_usd - best.cost_usd, _setup_reason(best, *_setup_basis(best, asked, minimum, basis)),
            tuple(shared + own + extra), _new_price(best, new_prices, options.new_price_margin), tuple(own), sharding,
        )

    fastest = answers["fastest"].setup
    floor = fastest.throughput * MEANINGFULLY_FASTER if fastest else 0.0
    over = [s for s in need if options.budget_usd < s.cost_usd <= options.budget_usd * STRETCH_BUDGET
            and s.throughput >= floor]
    stretch = min(over, key=_key("cheapest")) if over else None

    single = None
    notes: list[str] = []
    if options.gpus is not None and options.gpus > 1:
        singles = [c for c in candidates if eligible(c, replace(asked, gpus=1))
                   and c["cost_usd"] <= options.budget_usd + 1e-9]
        single = min((by_key[(c["model"], 1)] for c in singles), key=_key("fastest")) if singles else None
        if fastest and single:
            notes.append(_versus_single(fastest, single))

    for i, a in enumerate(ANSWERS):
        for b in ANSWERS[i + 1:]:
            sa, sb = answers[a].setup, answers[b].setup
            if sa and sb and (sa.model, sa.gpus) != (sb.model, sb.gpus) and _within(sa, sb):
                notes.append(f"{ANSWER_TITLES[a].lower()} ({sa.label}, {sa.throughput:.2f}x) and "
                             f"{ANSWER_TITLES[b].lower()} ({sb.label}, {sb.throughput:.2f}x) are "
                             "within each other's interval: the evidence does not tell their speeds apart")
    if (close := _better_evidenced(answers["best_value"].setup, need, options.budget_usd)) is not None:
        notes.append(close)
    left_out = left_out_summary(rows, view)
    if left_out:
        notes.append(left_out)

    over_budget = min(need, key=_key("cheapest")) if need and all(a.setup is None for a in answers.values()) else None
    first = rows[0] if rows else {}
    return BudgetAnswers(
        options=options, min_memory_gb=minimum, max_gpus=options.gpu_limit,
        precision=first.get("perf_precision"), reference_gpu=first.get("reference_gpu"), as_of=first.get("as_of"),
        fastest=answers["fastest"], best_value=answers["best_value"], cheapest=answers["cheapest"],
        stretch=stretch, single=single, assumptions=shared, notes=notes, unpriced=list(unpriced),
        over_budget=over_budget, table=table,
    )


def _setup_basis(setup: Setup, asked: Query, minimum: float | None, basis: str) -> tuple[float | None, str]:
    """The floor a setup's cards meet and whose it is: on several cards, the fine-tuning need is the sharded one."""
    floor = setup_floor(asked, setup.gpus)
    if setup.gpus > 1 and asked.memory_by_gpus and floor is not None and floor not in (minimum, asked.min_memory_gb):
        return floor, f"the {setup.gpus}-card sharded fine-tuning need (FSDP, ZeRO-3)"
    if setup.gpus > 1 and asked.memory_by_gpus and floor == asked.min_memory_gb and floor != minimum:
        preset = asked.use_case
        return floor, f"the {preset} minimum" if preset and USE_CASES[preset].min_memory_gb == floor else "the minimum"
    return minimum, basis


def _spread(s: Setup) -> float | None:
    """How wide a setup's throughput interval is, a share of its throughput: how well its speed is known."""
    if s.throughput_low is None or s.throughput_high is None or s.throughput <= 0:
        return None
    return (s.throughput_high - s.throughput_low) / s.throughput


def _better_evidenced(best: Setup | None, need: list[Setup], budget_usd: float) -> str | None:
    """Where the best value rests on a wide interval and the next best value of another card lies within
    it on evidence at most half as wide, a note naming that card: the evidence does not order their value,
    so the buyer sees the safer pick beside the headline one (which the one rule keeps)."""
    wide = _spread(best) if best is not None else None
    if best is None or wide is None:
        return None
    others = sorted((s for s in need if s.model != best.model and s.cost_usd <= budget_usd + 1e-9),
                    key=_key("best_value"))
    for other in others:
        narrow = _spread(other)
        if narrow is None or narrow > wide / 2 or not _within(best, _scaled(other, best)):
            continue
        return (f"best value: the {best.label}'s speed is uncertain ({best.throughput_low:.2f}-"
                f"{best.throughput_high:.2f}x; {perf_provenance(best.row) or 'source unknown'}); the {other.label}, "
                f"{other.value:.2f} perf per $1k against {best.value:.2f}, lies within that and is known more closely "
                f"({other.throughput_low:.2f}-{other.throughput_high:.2f}x): the evidence does not order their value")
    return None


def _scaled(other: Setup, best: Setup) -> Setup:
    """``other`` at ``best``'s cost: its throughput and interval scaled by the costs, so that the intervals
    compare value, not speed."""
    k = best.cost_usd / other.cost_usd if other.cost_usd > 0 else 1.0
    return replace(other, throughput=other.throughput * k,
                   throughput_low=None if other.throughput_low is None else other.throughput_low * k,
                   throughput_high=None if other.throughput_high is None else other.throughput_high * k)


def _none_why(need: list[Setup], options: AnswerOptions, minimum: float | None) -> str:
    floor = f" with at least {minimum:g} GB a card" if minimum is not None else ""
    if not need:
        return f"no ranked card{floor} is usable today for these inputs"
    cheapest = min(need, key=_key("cheapest"))
    return (f"nothing{floor} fits ${options.budget_usd:,.0f}: the cheapest setup is {cheapest.label} "
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
    row = dict(setup.row)
    level, price_words = price_confidence(row)
    made = setup.build
    return {
        "model": setup.model, "vendor": setup.vendor, "gpus": setup.gpus, "cost_usd": round(setup.cost_usd, 2),
        "cards_usd": round(setup.cards_usd, 2), "platform_usd": round(setup.platform_usd, 2),
        "price_usd": setup.price_usd, "throughput": round(setup.throughput, 4),
        "throughput_low": _round(setup.throughput_low), "throughput_high": _round(setup.throughput_high),
        "relative_perf": round(setup.relative_perf, 4), "perf_per_1000_usd": round(setup.value, 4),
        "scaling_efficiency": round(setup.scaling.efficiency, 4), "scaling_measured": setup.scaling.measured,
        "scaling_low": _round(setup.scaling.low), "scaling_high": _round(setup.scaling.high),
        "memory_gb": setup.memory_gb, "perf_source": row.get("perf_source"), "speed": perf_provenance(row) or None,
        **(evidence.as_dict() if (evidence := speed_evidence(row)) is not None else {}),
        "system_power_w": _round(made.system_power_w, 1) if made else None,
        "power_limit_w": made.power_limit_w if made else None,
        "card_power_w": _round(made.card_power_w, 1) if made else None,
        "power_limited": made.power_limited if made else False,
        "slot_width": made.slot_width if made else None, "riser": made.riser if made else False,
        "platform": made.platform if made else None,
        "price_kind": row.get("price_kind"), "price_n": row.get("price_n"), "price_as_of": row.get("price_as_of"),
        "price_age_days": row.get("price_age_days"), "price_tier": setup.price_tier, "stale": row.get("stale"),
        "price_low_usd": _round(setup.price_low_usd, 2), "price_high_usd": _round(setup.price_high_usd, 2),
        "price_confidence": level, "price_basis": price_words,
        "price_age": age_words(row["price_age_days"]) if row.get("price_age_days") is not None else None,
        "price_words": dated_price_words(setup),
        "yearly_electricity_usd": _round(setup.yearly_electricity_usd), "notes": row_notes(row),
    }


def _round(value: float | None, digits: int = 4) -> float | None:
    return round(value, digits) if value is not None else None


EMPTY_SETUP: dict[str, Any] = {"model": None, "gpus": None, "cost_usd": None, "throughput": None, "platform_usd": None,
               "system_power_w": None, "power_limit_w": None}


def answer_json(answer: Answer) -> dict[str, Any]:
    """One answer: ``model``, ``gpus``, ``cost_usd``, ``throughput``, ``platform_usd``, ``system_power_w``,
    ``power_limit_w``, ``money_left_usd``, ``assumptions`` and ``why`` always; the setup's fields null where
    no setup qualifies."""
    body: dict[str, Any] = _setup_json(answer.setup) if answer.setup is not None else dict(EMPTY_SETUP)
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
        "max_gpus": result.max_gpus, "gpus": o.gpus, "vendor": o.vendor,
        "platform_cost_usd": o.platform_cost_usd, "extra_gpu_cost_usd": o.extra_gpu_cost_usd,
        "power_limit_w": o.power_limit_w, "ownership_months": o.ownership_months,
        "finetune": None if o.finetune is None else {
            **o.finetune.as_dict(), "memory_gb_by_gpus": list(o.finetune.floors(max(o.counts)))},
        **{kind: answer_json(getattr(result, kind)) for kind in ANSWERS},
        "stretch": _setup_json(result.stretch) if result.stretch else None,
        "single": _setup_json(result.single) if result.single else None,
        "cheapest_over_budget": _setup_json(result.over_budget) if result.over_budget else None,
        "unpriced": [u.as_dict() for u in result.unpriced],
        "assumptions": list(result.assumptions),
        "notes": list(result.notes),
    }
