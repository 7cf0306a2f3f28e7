"""Rent or buy: what one hour of reference-card training costs either way, and when buying wins.

The unit is the reference-card hour: an hour of training at the speed of the reference card
(relative performance 1.0, the GeForce RTX 3090 by default). A card twice as fast does a reference
hour's work in half an hour, so every cost below is divided by the card's relative performance.

- Renting costs the cloud's price per GPU-hour: ``usd_per_gpu_hour / relative_perf``.
- Buying costs what the card loses in value over the holding period, spread over the hours it is
  used, plus its electricity at full board power (TDP):
  ``((price - resale value) / hours used + TDP kW x kWh price) / relative_perf``, where the resale
  value is ``resale_fraction x price`` and the hours used are hours a week x the weeks held.

The rented hour includes the machine around the card, so the bought one counts it too (``Machine``,
the platform rule of ``models/builds.py``): a machine bought for the card (``--platform-cost``) is
spent from the budget and loses value like the card; otherwise the card goes in the buyer's existing
desktop, which adds the value it loses per hour of its life and its own power draw for each hour it
trains. Both sides meet one memory floor, and the rented card holds at least the bought one's memory.

Buying's cost per hour falls as the card is used more; renting's does not. So there is one number of
hours a week at which they cost the same (the break-even): above it buying is cheaper. When the
card's electricity and the machine's hourly costs alone cost as much per reference hour as renting,
buying never wins.

Pure: plain numbers and dicts in, numbers and dataclasses out; the warehouse supplies the rows.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from typing import Any

from gpuvalue.models.ownership import DEFAULT_OWNERSHIP_MONTHS
from gpuvalue.models.builds import DESKTOP_W, EXISTING_DESKTOP_USD, PlatformCosts
from gpuvalue.models.framework_support import stack_support
from gpuvalue.models.price_age import is_index_price, price_basis
from gpuvalue.models.recommend import perf_provenance

WEEKS_PER_MONTH = 365.25 / 12 / 7  # 4.35 weeks
HOURS_PER_WEEK = 168.0

DEFAULT_HOLDING_MONTHS = DEFAULT_OWNERSHIP_MONTHS  # the one ownership horizon: recommend's electricity too
DEFAULT_RESALE_FRACTION = 0.5
DEFAULT_KWH_PRICE_USD = 0.15
DEFAULT_HOURS_PER_WEEK = 10.0


@dataclass(frozen=True)
class Assumptions:
    """What the comparison assumes; every output states them (``as_dict``, ``describe``)."""

    holding_months: float = DEFAULT_HOLDING_MONTHS  # how long a bought card is kept
    resale_fraction: float = DEFAULT_RESALE_FRACTION  # its resale value then, as a share of the price paid
    kwh_price_usd: float = DEFAULT_KWH_PRICE_USD  # electricity, USD per kWh
    hours_per_week: float = DEFAULT_HOURS_PER_WEEK  # training hours a week, bought or rented

    def __post_init__(self) -> None:
        checks = (
            ("holding_months", self.holding_months, 0 < self.holding_months <= 240, "between 0 and 240 months"),
            ("resale_fraction", self.resale_fraction, 0 <= self.resale_fraction < 1, "from 0 up to (not including) 1"),
            ("kwh_price_usd", self.kwh_price_usd, 0 <= self.kwh_price_usd <= 10, "between 0 and 10 USD"),
            ("hours_per_week", self.hours_per_week, 0 < self.hours_per_week <= HOURS_PER_WEEK, "above 0 and at most 168"),
        )
        for name, value, ok, bounds in checks:
            # `not (finite and ok)`, so that nan, which fails every comparison, is refused too.
            if not (isinstance(value, (int, float)) and math.isfinite(value) and ok):
                raise ValueError(f"{name} must be {bounds}, not {value!r}")
            object.__setattr__(self, name, float(value))  # 36 and 36.0 state the same assumption the same way

    @classmethod
    def from_settings(cls, settings: Any, **overrides: float | None) -> Assumptions:
        """From the run's settings (``holding_months``, ``resale_fraction``, ``kwh_price_usd``,
        ``hours_per_week``); an override that is None keeps the setting."""
        values = {name: getattr(settings, name) for name in ("holding_months", "resale_fraction", "kwh_price_usd",
                                                              "hours_per_week")}
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)

    def with_hours(self, hours_per_week: float) -> Assumptions:
        return replace(self, hours_per_week=hours_per_week)

    @property
    def weeks_held(self) -> float:
        return self.holding_months * WEEKS_PER_MONTH

    @property
    def hours_used(self) -> float:
        """Training hours over the holding period."""
        return self.hours_per_week * self.weeks_held

    def as_dict(self) -> dict[str, float]:
        return asdict(self)

    def describe(self) -> str:
        return (f"a bought card is kept {self.holding_months:g} months and resold for {self.resale_fraction:.0%} of its "
                f"price; electricity ${self.kwh_price_usd:g}/kWh at full board power (TDP); "
                f"{self.hours_per_week:g} h of training a week")


@dataclass(frozen=True)
class Machine:
    """The machine around a bought card, counted as a rented hour counts the host it runs on.

    ``bought_usd``: a machine bought for the card (``--platform-cost``, or the platform rule's price for
    one card where above zero), spent from the budget, resold at the resale fraction and spread over
    the hours used like the card. Otherwise the buyer's existing desktop, worth ``existing_usd``: each
    hour it trains costs the value it loses per hour of its life (over the holding period, at the
    resale fraction), whatever else it is used for. Either way it draws ``power_w`` while training."""

    bought_usd: float | None = None
    existing_usd: float = EXISTING_DESKTOP_USD
    power_w: float = DESKTOP_W

    def __post_init__(self) -> None:
        for name in ("bought_usd", "existing_usd", "power_w"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be 0 or more, not {value!r}")

    @classmethod
    def for_one_card(cls, platform_cost_usd: float | None = None) -> Machine:
        """``--platform-cost`` where given, else the platform rule for one card: bought where it
        prices one, the existing desktop where it says 0."""
        bought = PlatformCosts().usd(1) if platform_cost_usd is None else platform_cost_usd
        return cls(bought_usd=bought) if bought > 0 or platform_cost_usd is not None else cls()

    @property
    def spent_usd(self) -> float:
        """What the buyer pays for the machine: counted against the budget."""
        return self.bought_usd or 0.0

    def fixed_usd_per_hour(self, a: Assumptions) -> float:
        """Its cost per training hour that does not fall with more hours: the existing desktop's share
        of its own value lost, and its power."""
        power = self.power_w / 1000.0 * a.kwh_price_usd
        if self.bought_usd is not None:
            return power
        return self.existing_usd * (1.0 - a.resale_fraction) / (HOURS_PER_WEEK * a.weeks_held) + power

    def usd_per_hour(self, a: Assumptions) -> float:
        """Everything the machine adds to an hour of training at ``a``'s hours."""
        return self.spent_usd * (1.0 - a.resale_fraction) / a.hours_used + self.fixed_usd_per_hour(a)

    def describe(self, a: Assumptions) -> str:
        power = f"and draws {self.power_w:g} W while training"
        if self.bought_usd is not None:
            return (f"the machine around the card costs ${self.bought_usd:,.0f} (--platform-cost), counted in the budget "
                    f"and resold like the card, {power}")
        return (f"the card goes in the buyer's desktop (worth ${self.existing_usd:,.0f}; --platform-cost prices a "
                f"machine bought for it instead), which adds ${self.fixed_usd_per_hour(a):.3f} an hour of training: "
                f"its value lost per hour of its life, {power}")


CARD_ONLY = Machine(existing_usd=0.0, power_w=0.0)  # the card alone: no machine counted


def electricity_usd_per_hour(tdp_w: float | None, kwh_price_usd: float) -> float | None:
    """A card's electricity per hour at full board power; None when its board power is unknown."""
    if tdp_w is None or not tdp_w > 0:
        return None
    return tdp_w / 1000.0 * kwh_price_usd


def rent_cost_per_reference_hour(usd_per_gpu_hour: float, relative_perf: float) -> float:
    """What an hour of reference-card training costs rented on this card."""
    _positive(usd_per_gpu_hour, "usd_per_gpu_hour")
    _positive(relative_perf, "relative_perf")
    return usd_per_gpu_hour / relative_perf


def depreciation_usd_per_hour(used_price_usd: float, a: Assumptions) -> float:
    """The value a bought card loses per hour of use: (price - resale value) / hours used."""
    _positive(used_price_usd, "used_price_usd")
    return used_price_usd * (1.0 - a.resale_fraction) / a.hours_used


def buy_cost_per_reference_hour(used_price_usd: float, relative_perf: float, tdp_w: float | None,
                                a: Assumptions, machine: Machine = CARD_ONLY) -> float:
    """What an hour of reference-card training costs on this card bought used, with the machine
    around it (electricity left out when its board power is unknown)."""
    _positive(relative_perf, "relative_perf")
    power = electricity_usd_per_hour(tdp_w, a.kwh_price_usd) or 0.0
    return (depreciation_usd_per_hour(used_price_usd, a) + power + machine.usd_per_hour(a)) / relative_perf


def break_even_hours_per_week(used_price_usd: float, relative_perf: float, tdp_w: float | None,
                              rent_usd_per_reference_hour: float, a: Assumptions,
                              machine: Machine = CARD_ONLY) -> float | None:
    """Hours a week from which buying this card costs less per reference-card hour than renting at
    ``rent_usd_per_reference_hour`` (the same card or another); None when it never does, because the
    card's electricity alone costs as much. Independent of ``a.hours_per_week``.

    Solves (P (1 - r) / (H W) + e) / p = c for H: H = P (1 - r) / (W (c p - e)), with P the price,
    r the resale fraction, W the weeks held, e the electricity per hour, p the relative performance
    and c the rent per reference hour; a machine bought adds to P, the machine's hourly costs to e.
    May exceed 168: then no week is long enough."""
    _positive(used_price_usd, "used_price_usd")
    _positive(relative_perf, "relative_perf")
    _positive(rent_usd_per_reference_hour, "rent_usd_per_reference_hour")
    power = (electricity_usd_per_hour(tdp_w, a.kwh_price_usd) or 0.0) + machine.fixed_usd_per_hour(a)
    margin = rent_usd_per_reference_hour * relative_perf - power
    if margin <= 0:
        return None
    return (used_price_usd + machine.spent_usd) * (1.0 - a.resale_fraction) / (a.weeks_held * margin)


def _positive(value: float | None, name: str) -> None:
    if value is None or not (math.isfinite(value) and value > 0):
        raise ValueError(f"{name} must be a positive number, not {value!r}")


def compare(row: dict[str, Any], a: Assumptions) -> dict[str, Any]:
    """One card's comparison: ``row`` has ``model``, ``relative_perf``, ``usd_per_gpu_hour`` (and
    optionally ``spot_usd_per_gpu_hour``, ``used_price_usd``, ``tdp_w``); the result keeps the row's
    fields and adds the costs per reference-card hour, the break-even hours a week, which is cheaper
    at ``a.hours_per_week``, and the assumptions."""
    perf = row["relative_perf"]
    out = dict(row)
    rent = spot = buy = power = even = None
    if row.get("usd_per_gpu_hour"):
        rent = rent_cost_per_reference_hour(row["usd_per_gpu_hour"], perf)
    if row.get("spot_usd_per_gpu_hour"):
        spot = rent_cost_per_reference_hour(row["spot_usd_per_gpu_hour"], perf)
    if row.get("used_price_usd"):
        power = electricity_usd_per_hour(row.get("tdp_w"), a.kwh_price_usd)
        buy = buy_cost_per_reference_hour(row["used_price_usd"], perf, row.get("tdp_w"), a)
        if rent is not None:
            even = break_even_hours_per_week(row["used_price_usd"], perf, row.get("tdp_w"), rent, a)
    cheaper = None
    if rent is not None and buy is not None:
        cheaper = "buy" if buy <= rent else "rent"
    out.update({
        "rent_usd_per_reference_hour": rent,
        "spot_usd_per_reference_hour": spot,
        "buy_usd_per_reference_hour": buy,
        "electricity_usd_per_hour": power,
        "electricity_counted": power is not None if buy is not None else None,
        "break_even_hours_per_week": even,
        "cheaper": cheaper,
        **a.as_dict(),
    })
    return out


# --- the answer to "rent or buy, for this budget and these hours?" ----------------------------------


@dataclass(frozen=True)
class Option:
    action: str  # "buy" or "rent"
    model: str
    relative_perf: float
    usd_per_reference_hour: float
    price: float  # USD for a card bought, USD per GPU-hour rented
    basis: str  # where the price comes from and how old it is
    provider: str | None = None
    used_price_usd: float | None = None
    tdp_w: float | None = None
    memory_gb: float | None = None
    speed: str = ""  # where the speed figure comes from (measured, estimated)
    older: bool = False  # a price of the ranking's (or the rental ranking's) older tier: long before the newest


@dataclass(frozen=True)
class RentOrBuy:
    budget_usd: float
    assumptions: Assumptions
    verdict: str | None  # "buy", "rent", or None when neither has an option
    buy: Option | None
    rent: Option | None
    break_even_hours_per_week: float | None  # buying `buy` against renting `rent`
    same_card_break_even: float | None = None  # buying `buy` against renting that same model
    notes: list[str] = field(default_factory=list)
    rent_over_budget: Option | None = None  # the best rent when none fits the budget: the break-even is against it
    machine: Machine = CARD_ONLY  # the machine around the bought card, counted on the buy side
    min_memory_gb: float | None = None  # the one floor both sides meet


def _usable(row: Mapping[str, Any], min_memory_gb: float | None, *, legacy_ok: bool = False) -> bool:
    """``legacy_ok``: a card only the legacy PyTorch builds run counts too (`--include-legacy`)."""
    if row.get("framework_supported") is False and not (legacy_ok and row.get("framework_support") == "legacy"):
        return False
    if row.get("vendor") and stack_support(row).linux != "supported":
        return False  # recommend's default filter: a stack the tool itself calls unsupported is never bought or rented
    if not row.get("relative_perf") or row["relative_perf"] <= 0:
        return False
    if min_memory_gb is not None:
        return row.get("memory_gb") is not None and row["memory_gb"] >= min_memory_gb - 1e-9
    return True


def _when(day: Any) -> str:
    return day.isoformat() if isinstance(day, date) else "date unknown"


def buy_options(rows: Sequence[Mapping[str, Any]], budget_usd: float, a: Assumptions, *,
                min_memory_gb: float | None = None, desktop_only: bool = True,
                include_legacy: bool = False, machine: Machine = CARD_ONLY) -> list[Option]:
    """Used cards (ranking rows) that, with the machine bought for them, fit the budget: recently
    priced cards first, then those with older prices (the ranking's tiers,
    ``warehouse/models/marts/ranking_daily.sql``), each cheapest reference hour (machine included) first.

    As in the ranking, a card whose price is years old never goes before a recently priced one because
    its old price makes it look cheap: that price says little about what the card costs today."""
    found = []
    for row in rows:
        price = row.get("price_usd")
        if (not _usable(row, min_memory_gb, legacy_ok=include_legacy) or not price or price <= 0
                or price + machine.spent_usd > budget_usd + 1e-9):
            continue
        if desktop_only and row.get("desktop_usable") is False:
            continue
        cost = buy_cost_per_reference_hour(price, row["relative_perf"], row.get("tdp_w"), a, machine)
        stale = ", stale" if row.get("stale") else ""
        if is_index_price(row):  # somebody else's monthly average: its words name its month and source
            basis = f"{price_basis(row)}{stale}"
        else:  # as rank, the report and the feed name it: "lower quartile of 23 asking, 2025-11-25"
            basis = f"{price_basis(row)}, {_when(row.get('price_as_of'))}{stale}"
        found.append(Option("buy", row["model"], row["relative_perf"], cost, price, basis, used_price_usd=price,
                            tdp_w=row.get("tdp_w"), memory_gb=row.get("memory_gb"), speed=perf_provenance(row),
                            older=row.get("price_tier") == "older"))
    return sorted(found, key=lambda o: (o.older, o.usd_per_reference_hour, o.model))


def rent_options(rows: Sequence[Mapping[str, Any]], budget_usd: float, a: Assumptions, *,
                 min_memory_gb: float | None = None, stale_on_or_before: date | None = None) -> list[Option]:
    """Rental cards (rental ranking rows) whose on-demand cost over the holding period at the assumed
    hours fits the budget: recently priced ones first, then those priced only long before the newest
    rental price (the rental ranking's tiers, migration 017), each cheapest reference hour first.

    A price dated ``stale_on_or_before`` or earlier is called stale, as a used price outside the price
    window is: the rental ranking's own day is its newest price's, so a catalog loaded long ago would
    otherwise read as current beside a used price of today."""
    found = []
    for row in rows:
        rate = row.get("usd_per_gpu_hour")
        if not _usable(row, min_memory_gb) or not rate or rate * a.hours_used > budget_usd:
            continue
        cost = rent_cost_per_reference_hour(rate, row["relative_perf"])
        dated = row.get("price_as_of")
        stale = ", stale" if stale_on_or_before and isinstance(dated, date) and dated <= stale_on_or_before else ""
        basis = f"cheapest of {row.get('provider_count')} provider(s), {_when(dated)}{stale}"
        found.append(Option("rent", row["model"], row["relative_perf"], cost, rate, basis, provider=row.get("provider"),
                            memory_gb=row.get("memory_gb"), speed=perf_provenance(row),
                            older=row.get("price_tier") == "older"))
    return sorted(found, key=lambda o: (o.older, o.usd_per_reference_hour, o.model))


def rent_or_buy(used_rows: Sequence[Mapping[str, Any]], rental_rows: Sequence[Mapping[str, Any]], *, budget_usd: float,
                assumptions: Assumptions, min_memory_gb: float | None = None, desktop_only: bool = True,
                include_legacy: bool = False, rent_stale_on_or_before: date | None = None,
                machine: Machine | None = None) -> RentOrBuy:
    """Buy the used card with the cheapest reference hour within budget (among the recently priced ones
    when any fits, see ``buy_options``), or rent the card with the cheapest reference hour whose cost over
    the holding period fits the same budget: whichever costs less per reference-card hour at the assumed
    hours a week; with the break-even hours between them.

    Like with like: the buy side counts ``machine`` (default ``Machine()``: the buyer's desktop), as a
    rented hour includes its host; both sides meet ``min_memory_gb``, and the rented card holds at least
    the memory of the card bought, so renting is never the smaller card."""
    if not (math.isfinite(budget_usd) and budget_usd > 0):
        raise ValueError("budget_usd must be positive")
    a = assumptions
    machine = Machine() if machine is None else machine
    buys = buy_options(used_rows, budget_usd, a, min_memory_gb=min_memory_gb, desktop_only=desktop_only,
                       include_legacy=include_legacy, machine=machine)
    buy = buys[0] if buys else None
    rent_floor = max((m for m in (min_memory_gb, buy.memory_gb if buy else None) if m is not None), default=None)
    rents = rent_options(rental_rows, budget_usd, a, min_memory_gb=rent_floor,
                         stale_on_or_before=rent_stale_on_or_before)
    rent = rents[0] if rents else None
    notes = []
    if buy is None:
        spent = f" (${machine.spent_usd:,.0f} of it for the machine)" if machine.spent_usd else ""
        notes.append(f"no used card within ${budget_usd:,.0f}{spent}"
                     + (f" with at least {min_memory_gb:g} GB" if min_memory_gb else ""))
    if rent is None:
        held = f" with at least {rent_floor:g} GB" if rent_floor else ""
        notes.append(f"no rental card{held} costs ${budget_usd:,.0f} or less over {a.holding_months:g} months at "
                     f"{a.hours_per_week:g} h a week ({a.hours_used:,.0f} h)")
    elif buy is not None and rent.memory_gb is not None and buy.memory_gb is not None \
            and rent.memory_gb > buy.memory_gb:
        notes.append(f"the {rent.model} rented has {rent.memory_gb:g} GB, the {buy.model} bought {buy.memory_gb:g} GB: "
                     f"both meet the floor{f' of {min_memory_gb:g} GB' if min_memory_gb else ''}; the rented card "
                     "holds larger models or batches")
    verdict = even = same = None
    over = None
    if buy and rent:
        verdict = "buy" if buy.usd_per_reference_hour <= rent.usd_per_reference_hour else "rent"
        even = break_even_hours_per_week(buy.price, buy.relative_perf, buy.tdp_w, rent.usd_per_reference_hour, a,
                                         machine)
    elif buy or rent:
        verdict = "buy" if buy else "rent"
        if buy:  # renting is over budget at these hours; still say from when buying beats the best rental
            beyond = rent_options(rental_rows, math.inf, a, min_memory_gb=rent_floor,
                                  stale_on_or_before=rent_stale_on_or_before)
            over = beyond[0] if beyond else None
            if over is not None:
                even = break_even_hours_per_week(buy.price, buy.relative_perf, buy.tdp_w, over.usd_per_reference_hour,
                                                 a, machine)
    if buy is not None and not buy.older:
        cheaper = next((o for o in buys if o.older and o.usd_per_reference_hour < buy.usd_per_reference_hour), None)
        if cheaper is not None:
            notes.append(f"the {cheaper.model} would cost less per hour at its older price (${cheaper.price:,.0f}, "
                         f"{cheaper.basis}); as in the ranking, an older price counts only when no recently "
                         "priced card fits")
    if buy is not None:
        twin = next((r for r in rental_rows if r.get("model") == buy.model and r.get("usd_per_gpu_hour")), None)
        if twin is not None:
            same = break_even_hours_per_week(buy.price, buy.relative_perf, buy.tdp_w,
                                             rent_cost_per_reference_hour(twin["usd_per_gpu_hour"], buy.relative_perf), a,
                                             machine)
        if buy.tdp_w is None:
            notes.append(f"{buy.model}'s board power is unknown: its electricity is not counted")
    return RentOrBuy(budget_usd=budget_usd, assumptions=a, verdict=verdict, buy=buy, rent=rent,
                     break_even_hours_per_week=even, same_card_break_even=same, notes=notes, rent_over_budget=over,
                     machine=machine, min_memory_gb=min_memory_gb)


_NEVER = "its running costs alone (electricity, and the machine's hourly share) cost as much as renting"


def _cheaper(than: str, hours: float | None) -> str:
    """``costs less than renting X from 22.7 h a week``, or that it never does, and why."""
    if hours is None:
        return f"never costs less{than}: {_NEVER}"
    return f"costs less{than} from {_hours(hours)}"


def _hours(value: float) -> str:
    if value > HOURS_PER_WEEK:
        return f"{value:,.0f} h a week, more than a week has: in practice never"
    return f"{value:.1f} h a week"


def _source(option: Option) -> str:
    return f", {option.speed.removeprefix('speed ')}" if option.speed else ""


def format_rent_or_buy(r: RentOrBuy, reference_gpu: str) -> str:
    """Plain text for a terminal: the answer, both options with their costs, the break-even, the assumptions."""
    a = r.assumptions
    unit = f"per {reference_gpu}-hour"
    lines = [f"Budget ${r.budget_usd:,.0f}, {a.hours_per_week:g} h of training a week"]
    if r.verdict is None:
        lines.append("Neither buying nor renting has an option here.")
    else:
        chosen = r.buy if r.verdict == "buy" else r.rent
        assert chosen is not None  # a verdict names the option it chose
        where = f" on {chosen.provider}" if chosen.provider else " used"
        lines.append(f"Answer: {r.verdict} {chosen.model}{where}.")
    if r.buy:
        b = r.buy
        power = electricity_usd_per_hour(b.tdp_w, a.kwh_price_usd)
        host = r.machine.usd_per_hour(a)
        parts = f"${depreciation_usd_per_hour(b.price, a):.3f} value lost" + (
            f" + ${power:.3f} electricity" if power is not None else "") + (
            f" + ${host:.3f} machine" if host else "") + " per hour of use"
        lines.append(f"Buy:  {b.model} at ${b.price:,.0f} ({b.basis}), speed {b.relative_perf:.2f}x{_source(b)}: "
                     f"${b.usd_per_reference_hour:.3f} {unit} ({parts})")
    if r.rent:
        n = r.rent
        lines.append(f"Rent: {n.model} at ${n.price:.3f}/GPU-hour on {n.provider} ({n.basis}), speed "
                     f"{n.relative_perf:.2f}x{_source(n)}: ${n.usd_per_reference_hour:.3f} {unit}")
    if r.buy and r.rent:
        lines.append(f"Break-even: buying the {r.buy.model} "
                     f"{_cheaper(f' than renting the {r.rent.model}', r.break_even_hours_per_week)}.")
    elif r.buy and r.rent_over_budget:
        o = r.rent_over_budget
        never = r.break_even_hours_per_week is None
        lines.append(f"Break-even: against renting the {o.model} at ${o.price:.3f}/GPU-hour on {o.provider} "
                     f"(${o.usd_per_reference_hour:.3f} {unit}, over the budget at these hours), buying the "
                     f"{r.buy.model} {_cheaper('', r.break_even_hours_per_week)}."
                     + (" Buying is the answer only because renting that many hours is over the budget." if never else ""))
    if r.buy and r.same_card_break_even is not None and (not r.rent or r.rent.model != r.buy.model):
        lines.append(f"Against renting the {r.buy.model} itself, buying it {_cheaper('', r.same_card_break_even)}.")
    for note in r.notes:
        lines.append(f"Note: {note}")
    lines.append(f"Assumptions: {assumption_words(r)}.")
    return "\n".join(lines)


def assumption_words(r: RentOrBuy) -> str:
    """Everything a rent-or-buy answer assumed, in one line: the ownership terms, the machine, the
    memory floor and the budget rule."""
    a = r.assumptions
    floor = (f"both sides meet {r.min_memory_gb:g} GB a card, and the rented card holds at least the bought one's "
             "memory; ") if r.min_memory_gb else "the rented card holds at least the bought one's memory; "
    machine = r.machine.describe(a) if r.machine != CARD_ONLY else "the card alone: no machine counted"
    return (f"{a.describe()}; {machine}; {floor}the card{' and the machine' if r.machine.spent_usd else ''} fit the "
            f"budget, and renting counts cards whose on-demand cost over the holding period ({a.hours_used:,.0f} h) "
            "fits it")
