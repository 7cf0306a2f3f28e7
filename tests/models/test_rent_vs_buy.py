"""The rent-or-buy arithmetic (models/rent_vs_buy.py): costs per reference-card hour, the break-even
hours a week, the assumptions, and the answer for a budget. Pure: no DuckDB, no Prefect."""

from __future__ import annotations

import math
from datetime import date

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuvalue.models.rent_vs_buy import (
    CARD_ONLY, WEEKS_PER_MONTH, Assumptions, Machine, break_even_hours_per_week, buy_cost_per_reference_hour, buy_options, compare,
    depreciation_usd_per_hour, electricity_usd_per_hour, format_rent_or_buy, rent_cost_per_reference_hour, rent_options,
    rent_or_buy,
)

DEFAULT = Assumptions()


def test_defaults_are_the_documented_ones_and_every_output_states_them():
    assert DEFAULT.as_dict() == {"holding_months": 24.0, "resale_fraction": 0.5, "kwh_price_usd": 0.15, "hours_per_week": 10.0}
    assert DEFAULT.hours_used == pytest.approx(10 * 24 * 365.25 / 12 / 7)  # 1,043.6 h over two years
    text = DEFAULT.describe()
    assert "24 months" in text and "50%" in text and "$0.15/kWh" in text and "10 h" in text


def test_settings_feed_the_assumptions_and_a_flag_overrides_one():
    class Settings:
        holding_months, resale_fraction, kwh_price_usd, hours_per_week = 36.0, 0.3, 0.30, 20.0

    a = Assumptions.from_settings(Settings(), hours_per_week=5.0, kwh_price_usd=None)
    assert a == Assumptions(holding_months=36.0, resale_fraction=0.3, kwh_price_usd=0.30, hours_per_week=5.0)


@pytest.mark.parametrize("field, value", [
    ("holding_months", 0), ("holding_months", math.nan), ("resale_fraction", 1.0), ("resale_fraction", -0.1),
    ("kwh_price_usd", -1), ("hours_per_week", 0), ("hours_per_week", 169), ("hours_per_week", math.inf),
])
def test_impossible_assumptions_are_refused_naming_the_field(field, value):
    with pytest.raises(ValueError, match=field):
        Assumptions(**{field: value})


def test_renting_costs_the_gpu_hour_divided_by_the_speed():
    assert rent_cost_per_reference_hour(1.20, 2.0) == pytest.approx(0.60)  # twice as fast: half an hour per reference hour
    assert rent_cost_per_reference_hour(0.30, 0.5) == pytest.approx(0.60)
    with pytest.raises(ValueError, match="usd_per_gpu_hour"):
        rent_cost_per_reference_hour(0.0, 1.0)


def test_buying_costs_the_lost_value_per_hour_used_plus_electricity_divided_by_the_speed():
    # $1,000 card, half of it back after 24 months, 10 h a week: $500 over 1,043.6 h; 350 W at $0.15/kWh.
    hours = 10 * 24 * WEEKS_PER_MONTH
    assert depreciation_usd_per_hour(1000, DEFAULT) == pytest.approx(500 / hours)
    assert electricity_usd_per_hour(350, 0.15) == pytest.approx(0.0525)
    assert buy_cost_per_reference_hour(1000, 1.0, 350, DEFAULT) == pytest.approx(500 / hours + 0.0525)
    assert buy_cost_per_reference_hour(1000, 2.0, 350, DEFAULT) == pytest.approx((500 / hours + 0.0525) / 2)
    # Board power unknown: electricity is not counted (and the answer says so, below).
    assert electricity_usd_per_hour(None, 0.15) is None
    assert buy_cost_per_reference_hour(1000, 1.0, None, DEFAULT) == pytest.approx(500 / hours)


def test_more_hours_make_buying_cheaper_per_hour_and_renting_does_not_change():
    costs = [buy_cost_per_reference_hour(1000, 1.0, 350, DEFAULT.with_hours(h)) for h in (1, 10, 40, 168)]
    assert costs == sorted(costs, reverse=True)
    assert costs[-1] > 0.0525  # never below its electricity


def test_break_even_is_where_both_cost_the_same():
    even = break_even_hours_per_week(1000, 1.0, 350, 0.25, DEFAULT)
    # (500 / (H x 104.4 weeks) + 0.0525) = 0.25  =>  H = 500 / (104.4 x 0.1975) = 24.3 h a week
    assert even == pytest.approx(500 / (24 * WEEKS_PER_MONTH * (0.25 - 0.0525)))
    assert buy_cost_per_reference_hour(1000, 1.0, 350, DEFAULT.with_hours(even)) == pytest.approx(0.25)


def test_break_even_is_none_when_electricity_alone_costs_as_much_as_renting():
    assert break_even_hours_per_week(1000, 1.0, 350, 0.05, DEFAULT) is None  # 0.0525 > 0.05
    assert break_even_hours_per_week(1000, 1.0, 350, 0.0525, DEFAULT) is None


@given(price=st.floats(50, 40_000), perf=st.floats(0.05, 8), tdp=st.one_of(st.none(), st.integers(30, 1000)),
       rent=st.floats(0.02, 20), hours=st.floats(0.5, 168), resale=st.floats(0, 0.95), months=st.floats(1, 120),
       kwh=st.floats(0, 1))
def test_buying_is_cheaper_exactly_above_the_break_even(price, perf, tdp, rent, hours, resale, months, kwh):
    a = Assumptions(holding_months=months, resale_fraction=resale, kwh_price_usd=kwh, hours_per_week=hours)
    row = {"model": "X", "relative_perf": perf, "usd_per_gpu_hour": rent, "used_price_usd": price, "tdp_w": tdp}
    out = compare(row, a)
    even = out["break_even_hours_per_week"]
    buy, rented = out["buy_usd_per_reference_hour"], out["rent_usd_per_reference_hour"]
    if even is None:
        assert buy > rented * (1 - 1e-9)
    elif not math.isclose(hours, even, rel_tol=1e-6):
        assert (buy < rented) == (hours > even)
    assert out["cheaper"] == ("buy" if buy <= rented else "rent")


def test_compare_keeps_the_row_adds_the_costs_and_states_the_assumptions():
    row = {"model": "GeForce RTX 4090", "relative_perf": 1.6, "usd_per_gpu_hour": 0.40, "spot_usd_per_gpu_hour": 0.32,
           "used_price_usd": 1600.0, "tdp_w": 450, "provider": "vast"}
    out = compare(row, DEFAULT)
    assert out["provider"] == "vast" and out["model"] == "GeForce RTX 4090"
    assert out["rent_usd_per_reference_hour"] == pytest.approx(0.25)
    assert out["spot_usd_per_reference_hour"] == pytest.approx(0.20)
    assert out["electricity_usd_per_hour"] == pytest.approx(0.0675) and out["electricity_counted"] is True
    assert out["cheaper"] == "rent"  # at 10 h a week the card loses $0.77 an hour
    assert {k: out[k] for k in DEFAULT.as_dict()} == DEFAULT.as_dict()


def test_compare_without_a_used_price_answers_the_rent_side_only():
    out = compare({"model": "RTX A6000", "relative_perf": 1.1, "usd_per_gpu_hour": 0.44, "used_price_usd": None}, DEFAULT)
    assert out["rent_usd_per_reference_hour"] == pytest.approx(0.40)
    assert out["buy_usd_per_reference_hour"] is None and out["break_even_hours_per_week"] is None
    assert out["cheaper"] is None and out["electricity_counted"] is None


# --- the answer for a budget -------------------------------------------------------------------

def used(model: str, price: float, perf: float, *, tdp: int | None = 300, memory: float = 24.0, desktop: bool = True,
         framework: bool = True) -> dict:
    return {"model": model, "price_usd": price, "relative_perf": perf, "tdp_w": tdp, "memory_gb": memory,
            "desktop_usable": desktop, "framework_supported": framework, "price_kind": "sold", "price_n": 12,
            "price_as_of": date(2026, 11, 20), "stale": False, "perf_source": "lambda-pytorch-2024"}


def rented(model: str, rate: float, perf: float, *, memory: float = 24.0, provider: str = "vast",
           framework: bool = True) -> dict:
    return {"model": model, "usd_per_gpu_hour": rate, "relative_perf": perf, "memory_gb": memory, "provider": provider,
            "provider_count": 2, "price_as_of": date(2025, 3, 18), "framework_supported": framework,
            "perf_source": "estimate", "perf_method": "estimate: roofline"}


USED = [used("GeForce RTX 3090", 700, 1.0, tdp=350), used("GeForce RTX 4090", 1700, 1.6, tdp=450),
        used("H100 SXM5 80 GB", 20000, 3.9, tdp=700, memory=80, desktop=False),
        used("Tesla K80", 60, 0.1, framework=False)]
RENTED = [rented("GeForce RTX 3090", 0.20, 1.0), rented("A100 SXM4 80 GB", 1.40, 2.2, memory=80, provider="lambda"),
          rented("Tesla K80", 0.01, 0.1, framework=False)]


def test_few_hours_a_week_rent_many_hours_buy_with_the_same_break_even():
    # $2,000: renting the 3090 for 80 h a week costs $0.20 x 8,349 h = $1,670 over the two years, so it still fits.
    light = rent_or_buy(USED, RENTED, budget_usd=2000, assumptions=DEFAULT.with_hours(5), machine=CARD_ONLY)
    heavy = rent_or_buy(USED, RENTED, budget_usd=2000, assumptions=DEFAULT.with_hours(80), machine=CARD_ONLY)
    assert (light.verdict, light.rent.model, light.rent.provider) == ("rent", "GeForce RTX 3090", "vast")
    assert (heavy.verdict, heavy.buy.model) == ("buy", "GeForce RTX 3090")
    # $350 lost over 104.4 weeks against $0.20 - $0.0525 an hour: 22.7 h a week
    assert light.break_even_hours_per_week == pytest.approx(350 / (24 * WEEKS_PER_MONTH * (0.20 - 0.0525)))
    assert heavy.break_even_hours_per_week == pytest.approx(light.break_even_hours_per_week)
    assert light.same_card_break_even == pytest.approx(light.break_even_hours_per_week)


def test_budget_memory_desktop_and_framework_rules():
    # $1,000 buys a 3090 but not a 4090; the K80 (no current framework) is never an option either way.
    r = rent_or_buy(USED, RENTED, budget_usd=1000, assumptions=DEFAULT)
    assert r.buy.model == "GeForce RTX 3090" and r.rent.model != "Tesla K80"
    # 48 GB and up: no used card fits (the H100 needs a server); renting the A100 does if the money allows:
    # $1.40 x 1,043.6 h = $1,461 over the holding period.
    big = rent_or_buy(USED, RENTED, budget_usd=1500, assumptions=DEFAULT, min_memory_gb=48)
    assert big.buy is None and big.rent.model == "A100 SXM4 80 GB" and big.verdict == "rent"
    assert any("no used card within $1,500 with at least 48 GB" in n for n in big.notes)
    too_little = rent_or_buy(USED, RENTED, budget_usd=1400, assumptions=DEFAULT, min_memory_gb=48)
    assert too_little.verdict is None and any("no rental card with at least 48 GB costs $1,400" in n for n in too_little.notes)
    servers = rent_or_buy(USED, RENTED, budget_usd=25000, assumptions=DEFAULT.with_hours(168), min_memory_gb=48,
                          desktop_only=False)
    assert servers.buy.model == "H100 SXM5 80 GB"


def test_a_recently_priced_card_is_bought_before_one_whose_older_price_looks_cheaper():
    """The ranking's tiers hold here too: an old price says little about today's, so it never beats a
    recent one; the answer says what the older price would have given, and uses it when nothing recent fits."""
    recent = used("GeForce RTX 3090", 700, 1.0)
    old = {**used("GeForce RTX 3080", 300, 0.8), "price_tier": "older", "price_as_of": date(2023, 10, 1),
           "stale": True}
    answer = rent_or_buy([old, recent], RENTED, budget_usd=1000, assumptions=DEFAULT)
    assert answer.buy.model == "GeForce RTX 3090" and not answer.buy.older
    assert buy_options([old, recent], 1000, DEFAULT)[1].usd_per_reference_hour < answer.buy.usd_per_reference_hour
    (note,) = [n for n in answer.notes if "older price" in n]
    assert note.startswith("the GeForce RTX 3080 would cost less per hour at its older price ($300, median of 12 sold, "
                           "2023-10-01, stale)")
    only_old = rent_or_buy([old, recent], RENTED, budget_usd=500, assumptions=DEFAULT)
    assert only_old.buy.model == "GeForce RTX 3080" and only_old.buy.older
    assert not [n for n in only_old.notes if "older price" in n]


def test_a_recently_priced_rental_is_chosen_before_one_whose_older_price_looks_cheaper():
    """The rental ranking's tiers hold here too: a cloud price published long before the newest one
    is rented only when no recent one fits the budget."""
    old = {**rented("GeForce RTX 4090", 0.05, 1.6, provider="oldcloud"), "price_tier": "older",
           "price_as_of": date(2023, 8, 9)}
    recent = {**rented("GeForce RTX 3090", 0.20, 1.0), "price_tier": "recent"}
    answer = rent_or_buy(USED, [old, recent], budget_usd=2000, assumptions=DEFAULT.with_hours(5))
    assert (answer.rent.model, answer.rent.older) == ("GeForce RTX 3090", False)
    assert [o.model for o in rent_options([old, recent], 2000, DEFAULT)] == ["GeForce RTX 3090", "GeForce RTX 4090"]
    alone = rent_or_buy(USED, [old], budget_usd=2000, assumptions=DEFAULT.with_hours(5))
    assert (alone.rent.model, alone.rent.older) == ("GeForce RTX 4090", True)


def test_a_rental_price_older_than_the_price_window_is_called_stale_as_a_used_one_is():
    """The rental ranking's day is its newest price's, so a catalog loaded long ago reads as current
    unless the answer ages it on the used ranking's day (the caller's ``rent_stale_on_or_before``)."""
    def basis(stale_on_or_before):
        answer = rent_or_buy(USED, RENTED, budget_usd=2000, assumptions=DEFAULT.with_hours(5),
                             rent_stale_on_or_before=stale_on_or_before)
        return answer.rent.basis

    assert basis(date(2025, 3, 18)) == "cheapest of 2 provider(s), 2025-03-18, stale"
    assert basis(date(2025, 3, 17)) == basis(None) == "cheapest of 2 provider(s), 2025-03-18"
    undated = {**rented("GeForce RTX 3090", 0.20, 1.0), "price_as_of": None}
    assert rent_options([undated], 2000, DEFAULT, stale_on_or_before=date(2025, 3, 18))[0].basis == \
        "cheapest of 2 provider(s), date unknown"


def test_a_legacy_only_card_is_bought_only_when_asked_and_an_unsupported_one_never():
    legacy = {**used("Tesla V100 PCIe 16 GB", 300, 0.9, framework=False), "framework_support": "legacy"}
    unsupported = {**used("Tesla K80", 50, 0.2, framework=False), "framework_support": "none"}
    assert buy_options([legacy, unsupported], 1000, DEFAULT) == []
    assert [o.model for o in buy_options([legacy, unsupported], 1000, DEFAULT, include_legacy=True)] == [
        "Tesla V100 PCIe 16 GB"]
    answer = rent_or_buy([legacy], RENTED, budget_usd=1000, assumptions=DEFAULT, include_legacy=True)
    assert answer.buy.model == "Tesla V100 PCIe 16 GB"


def test_unknown_board_power_is_said_not_hidden():
    r = rent_or_buy([used("Mystery", 500, 1.0, tdp=None)], RENTED, budget_usd=600, assumptions=DEFAULT)
    assert any("board power is unknown" in n for n in r.notes)


def test_the_printed_answer_names_both_options_the_break_even_and_the_assumptions():
    text = format_rent_or_buy(rent_or_buy(USED, RENTED, budget_usd=1000, assumptions=DEFAULT, machine=CARD_ONLY),
                              "GeForce RTX 3090")
    assert "Answer: rent GeForce RTX 3090 on vast." in text
    assert "Buy:  GeForce RTX 3090 at $700 (median of 12 sold, 2026-11-20)" in text
    assert "Rent: GeForce RTX 3090 at $0.200/GPU-hour on vast" in text and "measured (lambda-pytorch-2024)" in text
    assert "Break-even: buying the GeForce RTX 3090 costs less than renting the GeForce RTX 3090 from 22.7 h a week." in text
    assert "kept 24 months" in text and "50%" in text and "$0.15/kWh" in text and "10 h of training a week" in text
    # The parts add up to the printed total: $0.0925/GPU-hour printed as $0.09 did not divide to its $0.119.
    rate = format_rent_or_buy(rent_or_buy(USED, [dict(RENTED[0], usd_per_gpu_hour=0.0925)], budget_usd=1000,
                                          assumptions=DEFAULT), "GeForce RTX 3090")
    assert "at $0.093/GPU-hour" in rate or "at $0.092/GPU-hour" in rate
    assert "$0.335 value lost" in text
    # An index price says whose monthly average it is and of which month, as rank and recommend do.
    index = {**used("GeForce RTX 3090", 700, 1.0), "price_kind": "index", "price_n": 765,
             "price_as_of": date(2023, 10, 1), "stale": True, "price_source": "tomshardware-ebay-index",
             "price_source_label": "Tom's Hardware eBay index"}
    assert ("Buy:  GeForce RTX 3090 at $700 (index price of 2023-10 (Tom's Hardware eBay index, average of 765 sold), "
            "stale)") in format_rent_or_buy(rent_or_buy([index], RENTED, budget_usd=1000, assumptions=DEFAULT),
                                            "GeForce RTX 3090")
    never = format_rent_or_buy(rent_or_buy([used("Hot", 100, 1.0, tdp=2000)], RENTED, budget_usd=300,
                                           assumptions=DEFAULT), "GeForce RTX 3090")
    assert ("never costs less than renting the GeForce RTX 3090: its running costs alone (electricity, and the "
            "machine's hourly share) cost as much as renting") in never
    assert "from never" not in never
    cheap = format_rent_or_buy(rent_or_buy([used("Hot", 100, 1.0, tdp=2000)], RENTED, budget_usd=110,
                                           assumptions=DEFAULT), "GeForce RTX 3090")
    assert "Answer: buy Hot used." in cheap, cheap
    assert "Buying is the answer only because renting that many hours is over the budget." in cheap


def test_a_budget_must_be_positive():
    with pytest.raises(ValueError):
        rent_or_buy(USED, RENTED, budget_usd=0, assumptions=DEFAULT)


# --- like with like: the machine, the memory, the budget ---------------------------------------------


def test_the_bought_card_counts_the_desktop_it_goes_in_as_a_rented_hour_counts_its_host():
    """Default: the buyer's desktop ($1,000) loses value by the hour whatever it does, and draws 150 W
    while training; each training hour bears both, so the buy side costs more than the card alone and
    buying wins later."""
    desk = Machine()
    hourly = 1000 * 0.5 / (168 * 24 * WEEKS_PER_MONTH) + 0.15 * 0.15
    assert desk.fixed_usd_per_hour(DEFAULT) == pytest.approx(hourly) and desk.spent_usd == 0
    alone = rent_or_buy(USED, RENTED, budget_usd=2000, assumptions=DEFAULT.with_hours(5), machine=CARD_ONLY)
    counted = rent_or_buy(USED, RENTED, budget_usd=2000, assumptions=DEFAULT.with_hours(5))
    assert counted.machine == desk
    assert counted.buy.usd_per_reference_hour == pytest.approx(alone.buy.usd_per_reference_hour + hourly)
    assert counted.break_even_hours_per_week == pytest.approx(350 / (24 * WEEKS_PER_MONTH * (0.20 - 0.0525 - hourly)))
    # At the break-even both sides cost the same, machine included.
    even = counted.break_even_hours_per_week
    assert buy_cost_per_reference_hour(700, 1.0, 350, DEFAULT.with_hours(even), desk) == pytest.approx(0.20)
    text = format_rent_or_buy(counted, "GeForce RTX 3090")
    assert "the card goes in the buyer's desktop (worth $1,000" in text and "machine per hour of use" in text


def test_a_machine_bought_for_the_card_is_spent_from_the_budget_and_resold_like_it():
    bought = Machine(bought_usd=800)
    # $1,400 buys the 3090 ($700) and the $800 machine? No: $1,500 does.
    assert rent_or_buy(USED, RENTED, budget_usd=1400, assumptions=DEFAULT, machine=bought).buy is None
    fits = rent_or_buy(USED, RENTED, budget_usd=1500, assumptions=DEFAULT, machine=bought)
    assert fits.buy.model == "GeForce RTX 3090"
    power = 0.15 * 0.15
    assert fits.break_even_hours_per_week == pytest.approx(
        (700 + 800) * 0.5 / (24 * WEEKS_PER_MONTH * (0.20 - 0.0525 - power)))
    assert "the machine around the card costs $800 (--platform-cost)" in format_rent_or_buy(fits, "GeForce RTX 3090")
    assert Machine.for_one_card(0.0) == Machine(bought_usd=0.0)  # --platform-cost 0: a machine that cost nothing
    assert Machine.for_one_card() == Machine()  # the platform rule: one card goes in the buyer's desktop


def test_the_rented_card_holds_at_least_the_memory_of_the_card_bought():
    """A 24 GB card bought is never set against a 12 GB one rented, however cheap: it could not do the work."""
    small = rented("GeForce RTX 3060", 0.01, 0.4, memory=12)
    r = rent_or_buy(USED, [small, *RENTED], budget_usd=1000, assumptions=DEFAULT, min_memory_gb=8)
    assert r.buy.memory_gb == 24 and r.rent.model == "GeForce RTX 3090"
    # A bought card with less memory than the rented one: said, with the one floor both meet.
    twelve = used("GeForce RTX 3080 Ti", 500, 0.9, memory=12)
    r = rent_or_buy([twelve], [small, *RENTED], budget_usd=1000, assumptions=DEFAULT, min_memory_gb=8)
    assert r.rent.model == "GeForce RTX 3060"
    assert "both sides meet 8 GB a card" in format_rent_or_buy(r, "GeForce RTX 3090")


@given(budget=st.floats(50, 30_000), machine=st.one_of(st.none(), st.floats(0, 5_000)),
       floor=st.one_of(st.none(), st.sampled_from([8.0, 12.0, 24.0, 48.0])), hours=st.floats(1, 168))
def test_the_budget_bounds_the_buy_side_and_both_sides_meet_the_floor(budget, machine, floor, hours):
    small = [used("GeForce RTX 3060", 250, 0.45, memory=12), rented("GeForce RTX 3060", 0.05, 0.45, memory=12)]
    bought = Machine() if machine is None else Machine(bought_usd=machine)
    r = rent_or_buy([*USED, small[0]], [*RENTED, small[1]], budget_usd=budget, assumptions=DEFAULT.with_hours(hours),
                    min_memory_gb=floor, machine=bought)
    if r.buy is not None:
        assert r.buy.price + bought.spent_usd <= budget + 1e-6
        assert floor is None or r.buy.memory_gb >= floor
    if r.rent is not None:
        assert r.rent.price * DEFAULT.with_hours(hours).hours_used <= budget + 1e-6
        assert floor is None or r.rent.memory_gb >= floor
        assert r.buy is None or r.rent.memory_gb >= r.buy.memory_gb


def test_the_buy_side_never_picks_a_card_whose_stack_recommend_calls_unsupported():
    """recommend's default filter holds here too: an RDNA 2 Radeon (not on AMD's ROCm list) cheaper per hour
    than the 3090 is not bought; a listed one is."""
    unlisted = dict(used("Radeon RX 6950 XT", 300, 0.9, tdp=335, memory=16), vendor="AMD", architecture="RDNA 2.0",
                    framework_support="current")
    listed = dict(used("Radeon RX 7900 XTX", 650, 1.1, tdp=355), vendor="AMD", architecture="RDNA 3.0",
                  framework_support="current")
    three = dict(USED[0], vendor="NVIDIA", framework_support="current")
    picked = rent_or_buy([three, unlisted], RENTED, budget_usd=2000, assumptions=DEFAULT, machine=CARD_ONLY)
    assert picked.buy is not None and picked.buy.model == "GeForce RTX 3090"
    assert rent_or_buy([three, listed], RENTED, budget_usd=2000, assumptions=DEFAULT,
                       machine=CARD_ONLY).buy.model == "Radeon RX 7900 XTX"
