"""What a budget buys: the fastest setup, the best value and the cheapest, from the day's ranking rows,
each a real build (the machine by card count, the power within one supply and one circuit, the slots)."""

from datetime import date

import pytest
from conftest_exports import LATEST_DAY, ranking_for
from gpuvalue.models.budget_answers import AnswerOptions, answers_json, budget_answers
from gpuvalue.models.budget_text import format_budget_answers
from gpuvalue.models.buyer_view import BuyerView
from gpuvalue.models.multi_gpu import ClassScaling, ScalingFacts, class_scaling, setup_scaling
from gpuvalue.models.recommend import USE_CASES
from gpuvalue.models.unpriced import Unpriced

WIDTHS = {"GeForce RTX 3090": "Triple-slot", "GeForce RTX 4090": "Triple-slot"}
ROWS = [dict(r, slot_width=WIDTHS.get(r["model"], "Dual-slot")) for r in ranking_for(LATEST_DAY)]
FACTS = ScalingFacts()  # nothing measured, no class known: 90% per card everywhere
AMD_UNLISTED = {**ROWS[0], "model": "Radeon RX 7600 XT", "vendor": "AMD", "architecture": "RDNA 3.0",
                "segment": "desktop", "memory_gb": 16.0, "relative_perf": 0.37, "price_usd": 280.0, "tdp_w": 190,
                "framework_support": "current", "framework_supported": True, "desktop_usable": True, "passive": False}


def answer(budget, rows=ROWS, facts=FACTS, **options):
    return budget_answers(rows, facts, AnswerOptions(budget_usd=budget, **options))


def label(setup):
    return (setup.model, setup.gpus) if setup else None


def test_the_fastest_setup_is_a_build_with_its_machine_counted():
    result = answer(4900, use_case="research")  # 4x 3090 on a workstation with risers: $5,000
    fastest = result.fastest.setup  # 2x 4090: $3,412 of cards and $350 of machine, 900 W + 150 W
    assert label(fastest) == ("GeForce RTX 4090", 2)
    assert (fastest.platform_usd, fastest.cost_usd, fastest.system_power_w) == (350.0, 3762.0, 1050.0)
    assert fastest.throughput == pytest.approx(2 * 1.85 * 0.9)
    assert result.fastest.money_left_usd == pytest.approx(4900 - 3762)
    assert label(result.cheapest.setup) == ("Radeon RX 7900 XTX", 1)  # on AMD's ROCm list: it competes, with its caveat
    assert any(a.startswith("AMD card, not CUDA") for a in result.cheapest.own)
    assert result.min_memory_gb == 24 and result.max_gpus == 4
    one = answer(1000, use_case="research").fastest.setup  # one card goes into the buyer's desktop: $0
    assert label(one) == ("GeForce RTX 3090", 1) and one.platform_usd == 0 and one.system_power_w == 500


def test_power_is_a_limit_cards_are_limited_to_fit_or_the_setup_is_not_offered():
    result = answer(10000, use_case="research")
    fastest = result.fastest.setup  # 3x 4090 at 1,350 W + 250 W are over 1,440 W: limited to 360 W a card
    assert label(fastest) == ("GeForce RTX 4090", 3)
    build = fastest.build
    assert build.power_limited and build.card_power_w == 360 and fastest.system_power_w == 1330 <= 1440
    assert fastest.throughput == pytest.approx(3 * 1.85 * 0.9 * 0.95)
    assert any(a.startswith("power: each card limited to 360 W of its 450 W") for a in result.fastest.own)
    assert ("GeForce RTX 4090", 4) not in {label(s) for s in result.table}  # 4 x 360 W + 250 W: still too much
    raised = answer(10000, use_case="research", power_limit_w=3000)  # a setting raises the limit
    assert label(raised.fastest.setup) == ("GeForce RTX 4090", 4) and not raised.fastest.setup.build.power_limited
    assert answers_json(result)["fastest"]["power_limit_w"] == 1440


def test_slots_three_or_four_wide_cards_need_a_riser_build_said_and_counted():
    result = answer(10000, use_case="research")
    fastest = result.fastest.setup
    assert fastest.build.riser and fastest.platform_usd == 2000 + 3 * 60
    assert any(a.startswith("slots: 3 triple-slot cards do not fit side by side: a riser build")
               for a in result.fastest.own)
    two = next(s for s in result.table if label(s) == ("GeForce RTX 3090", 2))
    assert not two.build.riser and two.platform_usd == 350  # two triple-slot cards fit a desktop board
    four = next(s for s in answer(5000, use_case="kaggle", max_gpus=4).table if label(s) == ("GeForce RTX 3060 12 GB", 4))
    assert not four.build.riser and four.platform_usd == 2000  # four dual-slot cards side by side


def test_one_scaling_rule_measured_else_the_class_median_with_its_spread():
    measured = {"GeForce RTX 3090": {2: 0.95, 3: 0.5}, "GeForce RTX 3080": {2: 0.7, 4: 0.8},
                "Quadro RTX 8000": {2: 0.98}}
    classes = class_scaling(measured, {"GeForce RTX 3090": "desktop", "GeForce RTX 3080": "desktop",
                                       "Quadro RTX 8000": "workstation"})
    assert classes["desktop"].median == pytest.approx(0.75) and classes["desktop"].n == 4
    facts = ScalingFacts(measured=measured, classes=classes)
    result = answer(10000, facts=facts, use_case="research")
    table = {label(s): s for s in result.table}
    assert table[("GeForce RTX 3090", 2)].throughput == pytest.approx(1.9)
    assert ("GeForce RTX 3090", 3) not in table  # 3 x 50% = 1.5: slower than two, never offered
    four = table[("GeForce RTX 4090", 2)]  # unmeasured: the desktop median, its quartiles widening the interval
    assert four.scaling.efficiency == pytest.approx(0.75) and not four.scaling.measured
    assert four.throughput_low < four.throughput < four.throughput_high
    assert "the median of 4 measured setups of desktop cards on PCIe" in four.scaling.words
    assert setup_scaling("x", 2, facts, "workstation").efficiency == pytest.approx(0.98)
    spread = ScalingFacts(measured=measured, spread={"GeForce RTX 3090": {2: (0.82, 0.97)}})
    measured_two = setup_scaling("GeForce RTX 3090", 2, spread)  # several sources: their range widens it
    assert (measured_two.low, measured_two.efficiency, measured_two.high) == (0.82, 0.95, 0.97)
    assert "(82%-97% over the sources)" in measured_two.words
    assert setup_scaling("x", 2, ScalingFacts()).efficiency == 0.9  # no class known: the setting
    assert setup_scaling("x", 1, facts).efficiency == 1.0
    with pytest.raises(ValueError, match="efficiency"):
        ScalingFacts(assumed_efficiency=1.2)
    assert ClassScaling(0.8, 0.7, 0.9, 3).median == 0.8


def test_beginner_and_kaggle_get_one_card_unless_they_ask_for_more():
    kaggle = answer(1400, use_case="kaggle")
    assert kaggle.max_gpus == 1 and all(a.setup.gpus == 1 for a in kaggle.answers())
    assert kaggle.fastest.setup.model == "GeForce RTX 3090"
    assert any(a.startswith("one card: one card for kaggle (--max-gpus N compares more)") for a in kaggle.assumptions)
    asked = answer(1400, use_case="kaggle", max_gpus=3)
    assert asked.fastest.setup.gpus > 1
    assert answer(10000, use_case="research", workstation_gpus=2).fastest.setup.gpus == 2  # GPUVALUE_MAX_GPUS=2


def test_the_beginner_gets_an_ampere_or_newer_nvidia_card():
    result = answer(300, use_case="beginner")  # the 2080 Ti ($300, 0.68x) is Turing: no bf16, no FlashAttention-2
    assert {a.setup.model for a in result.answers()} <= {"GeForce RTX 3060 12 GB", "GeForce RTX 3050 8 GB"}
    assert label(result.fastest.setup) == ("GeForce RTX 3060 12 GB", 1)
    assert any(a.startswith("beginner: an Ampere or newer NVIDIA card only") for a in result.assumptions)
    assert answer(300, min_memory_gb=8).fastest.setup.model == "GeForce RTX 2080 Ti"


def test_without_a_vendor_no_card_whose_stack_is_unsupported_on_linux_is_picked():
    rows = [*ROWS, AMD_UNLISTED]
    kaggle = answer(300, rows=rows, use_case="kaggle")
    assert all(a.setup.model == "GeForce RTX 3060 12 GB" for a in kaggle.answers())
    assert any("left out (--vendor AMD or Intel shows them" in a for a in kaggle.assumptions)
    amd = answer(300, rows=rows, use_case="kaggle", vendor="AMD")  # asked for: offered, with its one-line caveat
    assert amd.fastest.setup.model == "Radeon RX 7600 XT"
    assert any("not on AMD's ROCm list (unsupported)" in a for a in amd.fastest.own)


def test_the_use_case_floors_and_their_reasons():
    assert {name: u.min_memory_gb for name, u in USE_CASES.items()} == {
        "beginner": 8, "kaggle": 12, "research": 24, "cv": 12, "nlp": 12, "llm": 24}
    for name in USE_CASES:
        words = answer(2000, use_case=name).assumptions[0]
        assert words.startswith(f"{name}: at least {USE_CASES[name].min_memory_gb:g} GB because "), words
    assert "Dettmers" in USE_CASES["research"].why and "QLoRA" in USE_CASES["llm"].why
    assert answer(2000, use_case="kaggle", min_memory_gb=24).min_memory_gb == 24  # --min-memory raises a floor


def test_a_fixed_count_compares_with_the_fastest_single_card():
    result = answer(2000, gpus=2, min_memory_gb=24)
    assert all(a.setup.gpus == 2 for a in result.answers())
    assert (result.fastest.setup.model, result.single.model) == ("GeForce RTX 3090", "GeForce RTX 4090")
    assert "exactly 2 cards a setup (--gpus)" in result.assumptions


def test_the_buyers_own_machine_cost_replaces_the_default_and_is_said():
    boxed = answer(1400, use_case="research", platform_cost_usd=1000)
    fastest = boxed.fastest.setup  # $400 left for cards: the 7900 XTX and the 3090 are over it
    assert fastest is None or fastest.cost_usd <= 1400
    assert any(a.startswith("the machine: $1,000 a setup") for a in boxed.assumptions)
    slots = answer(8000, use_case="research", platform_cost_usd=1500, extra_gpu_cost_usd=400)
    s = slots.fastest.setup
    assert s.platform_usd == 1500 + 400 * (s.gpus - 1) + (60 * s.gpus if s.build.riser else 0)


def test_every_priced_card_competes_and_an_old_price_says_verify():
    aged = [dict(r, price_tier="older" if r["model"] == "GeForce RTX 3090" else "recent", stale=r["model"] == "GeForce RTX 3090",
                 price_age_days=900 if r["model"] == "GeForce RTX 3090" else 3) for r in ROWS]
    result = answer(1000, rows=aged, use_case="research")
    setup = result.fastest.setup
    assert setup.model == "GeForce RTX 3090"  # older-priced, still compared
    assert setup.price_drift == pytest.approx(0.15 * 900 / 365.25)
    assert setup.price_low_usd < 690 < setup.price_high_usd
    assert any(a.startswith("verify the price: ") for a in result.fastest.own)
    assert not any(a.startswith("verify") for a in answer(1000, use_case="research").fastest.own)


def test_nothing_fits_is_three_empty_answers_that_say_why():
    result = answer(100, use_case="kaggle")
    assert [a.setup for a in result.answers()] == [None, None, None]
    why = ("nothing with at least 12 GB a card fits $100: the cheapest setup is GeForce RTX 3060 12 GB at $230, "
           "price: median of 57 sold listings as of 2024-05-08")
    assert {a.why for a in result.answers()} == {why}
    doc = answers_json(result)
    assert doc["fastest"] == {"model": None, "gpus": None, "cost_usd": None, "throughput": None, "platform_usd": None,
                              "system_power_w": None, "power_limit_w": None,
                              "money_left_usd": None, "new_price": None, "assumptions": doc["fastest"]["assumptions"],
                              "why": why, "money_left_text": None, "setup_assumptions": []}
    assert doc["fastest"]["assumptions"]  # still says what it assumed
    assert answer(500, min_memory_gb=200).cheapest.why == ("no ranked card with at least 200 GB a card is usable "
                                                           "today for these inputs")
    text = format_budget_answers(result)
    assert f"Fastest, best value and cheapest: none; {why}" in text.splitlines()  # one line for the three


def test_the_json_entries_carry_the_public_fields():
    doc = answers_json(answer(4900, use_case="research"))
    for kind in ("fastest", "best_value", "cheapest"):
        assert {"model", "gpus", "cost_usd", "throughput", "money_left_usd", "assumptions", "why", "platform_usd",
                "system_power_w", "power_limit_w"} <= set(doc[kind])
        assert doc[kind]["system_power_w"] <= doc[kind]["power_limit_w"]
    assert (doc["fastest"]["model"], doc["fastest"]["gpus"], doc["fastest"]["cost_usd"]) == ("GeForce RTX 4090", 2, 3762.0)
    assert doc["fastest"]["platform_usd"] == 350.0 and doc["fastest"]["money_left_usd"] == 1138.0
    assert (doc["budget_usd"], doc["use_case"], doc["max_gpus"], doc["gpus"]) == (4900, "research", 4, None)


def test_electricity_counts_over_the_one_ownership_horizon():
    result = answer(700, use_case="llm", kwh_price=0.30, hours_per_day=8, ownership_months=24)
    yearly_3090 = 350 / 1000 * 8 * 365 * 0.30
    best = result.fastest.setup
    assert best.model == "GeForce RTX 3090" and best.yearly_electricity_usd == pytest.approx(yearly_3090)
    assert best.value == pytest.approx(1.0 / (690 + 2 * yearly_3090) * 1000)
    assert any("counted over 24 months of ownership" in a for a in result.assumptions)
    with pytest.raises(ValueError, match="both"):
        AnswerOptions(budget_usd=700, kwh_price=0.3)


def test_a_new_card_that_costs_little_more_is_shown_beside_the_used_one():
    new = {"GeForce RTX 3060 12 GB": {"price_usd": 250.0, "price_kind": "asking", "price_n": 12,
                                     "price_as_of": date(2024, 5, 8)}}
    result = budget_answers(ROWS, FACTS, AnswerOptions(budget_usd=300, use_case="kaggle"), new_prices=new)
    shown = result.cheapest.new_price
    assert shown is not None and shown.premium == pytest.approx(250 / 230 - 1)
    assert shown.words() == ("new: $250 a card (asking, 12 listings, as of 2024-05-08), 9% more than used: "
                             "a warranty and no mining wear")
    dear = {"GeForce RTX 3060 12 GB": dict(new["GeForce RTX 3060 12 GB"], price_usd=300.0)}
    assert budget_answers(ROWS, FACTS, AnswerOptions(budget_usd=300, use_case="kaggle"),
                          new_prices=dear).cheapest.new_price is None
    # A new price from well before the used one (2025's MSRP beside a 2026 used best deal) is not compared.
    old = {"GeForce RTX 3060 12 GB": dict(new["GeForce RTX 3060 12 GB"], price_as_of=date(2023, 5, 8))}
    assert budget_answers(ROWS, FACTS, AnswerOptions(budget_usd=300, use_case="kaggle"),
                          new_prices=old).cheapest.new_price is None


def test_answers_within_each_others_interval_are_said_to_be():
    rows = [dict(r, perf_low=r["relative_perf"] * 0.8, perf_high=r["relative_perf"] * 1.25) for r in ROWS]
    result = answer(700, rows=rows, use_case="llm")  # fastest 3090 (1.00) and best value 7900 XTX (0.90)
    assert (result.fastest.setup.model, result.best_value.setup.model) == ("GeForce RTX 3090", "Radeon RX 7900 XTX")
    assert any("are within each other's interval" in n for n in result.notes), result.notes
    assert answers_json(result)["fastest"]["throughput_low"] == pytest.approx(0.8)


def test_cards_a_buyer_cannot_use_never_answer_and_are_counted():
    result = answer(100_000)
    models = {a.setup.model for a in result.answers()}
    assert not models & {"Tesla K80", "H100 SXM5 80 GB"}
    assert any(n.startswith("left out 2 ranked card(s)") for n in result.notes)
    modules = answer(100_000, view=BuyerView(include_modules=True), max_gpus=1)
    assert modules.fastest.setup.model == "H100 SXM5 80 GB"


def test_the_use_cases_precision_is_used_where_the_ranking_has_it():
    fp32 = [dict(row, perf_precision="fp32", relative_perf=row["relative_perf"] * 0.5) for row in ROWS]
    result = answer(500, rows=fp32 + ROWS, use_case="kaggle")
    assert result.cheapest.setup.relative_perf == pytest.approx(0.45)  # the fp16 figure, as kaggle trains
    assert any("prefers fp16" in a for a in answer(500, rows=fp32, use_case="kaggle").assumptions)


def test_the_text_gives_each_answer_its_reason_build_and_the_unpriced_cards():
    missing = [Unpriced(model="GeForce RTX 5070", memory_gb=12.0, relative_perf=0.76, perf_source="estimate",
                        launch_price_usd=549.0, release_date=date(2025, 3, 4), why="no used price")]
    result = budget_answers(ROWS, FACTS, AnswerOptions(budget_usd=4900, use_case="research"), unpriced=missing)
    lines = format_budget_answers(result).splitlines()
    assert lines[0] == "Budget $4,900 for research, at least 24 GB a card, 1 to 4 cards"
    assert lines[1] == ("Fastest: 2x GeForce RTX 4090, $3,762 (cards $3,412 + machine $350), throughput 3.33x "
                        "(3.33-3.33); $1,138 left")
    assert lines[2].startswith("   0.89 perf per $1k; 24 GB per card meets the research minimum of 24 GB")
    assert "   machine: a desktop with two x8 slots and a larger power supply ($350 counted)" in lines
    assert "   power: 2 x 450 W and 150 W for the machine = 1,050 W, within 1,200 W" in lines
    assert any("not priced, so not compared: GeForce RTX 5070 (12 GB, 0.76x estimated, launched at $549)" in line
               for line in lines)
    assert lines[-2].startswith("Assumed: research: at least 24 GB because")
    assert answers_json(result)["unpriced"][0]["model"] == "GeForce RTX 5070"


def test_bad_options_raise():
    with pytest.raises(ValueError, match="unknown use case"):
        AnswerOptions(budget_usd=500, use_case="gaming")
    with pytest.raises(ValueError, match="budget"):
        AnswerOptions(budget_usd=0)
    with pytest.raises(ValueError, match="gpus"):
        AnswerOptions(budget_usd=500, gpus=0)
    with pytest.raises(ValueError, match="power"):
        AnswerOptions(budget_usd=500, power_limit_w=0)


def test_two_cards_stay_within_the_supply_the_two_card_desktop_buys():
    """The $350 two-card desktop buys a 1,200 W supply: two 575 W cards and the desktop (1,300 W) are
    power-limited to fit it, and say so; a machine the buyer prices himself keeps the circuit's limit."""
    from gpuvalue.models.builds import TWO_CARDS_SUPPLY_W, PlatformCosts, build

    made = build(2, board_w=575, width=3, costs=PlatformCosts())
    assert made is not None and made.power_limited and made.system_power_w <= TWO_CARDS_SUPPLY_W
    assert any(f"within {TWO_CARDS_SUPPLY_W:,} W" in line for line in made.words(575, "NVIDIA"))
    own = build(2, board_w=575, width=3, costs=PlatformCosts(custom_base_usd=500))
    assert own is not None and not own.power_limited and own.system_power_w == 1300
