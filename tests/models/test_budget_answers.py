"""What a budget buys: the fastest setup, the best value and the cheapest, from the day's ranking rows."""

from datetime import date

import pytest
from conftest_exports import LATEST_DAY, ranking_for
from gpuvalue.models.budget_answers import AnswerOptions, answers_json, budget_answers
from gpuvalue.models.budget_text import format_budget_answers
from gpuvalue.models.multi_gpu import ScalingFacts, setup_scaling
from gpuvalue.models.unpriced import Unpriced

ROWS = ranking_for(LATEST_DAY)
FACTS = ScalingFacts()  # nothing measured: 90% per card everywhere


def answer(budget, rows=ROWS, facts=FACTS, **options):
    return budget_answers(rows, facts, AnswerOptions(budget_usd=budget, **options))


def test_the_fastest_setup_a_research_budget_buys_spends_it_on_several_cards():
    result = answer(1400, use_case="research")
    fastest = result.fastest.setup
    # 3x V100 16 GB: 3 x 0.85 x 90% = 2.30, for $1,350; the fastest single card within $1,400 is a 3090 (1.00).
    assert (fastest.model, fastest.gpus, fastest.cost_usd) == ("Tesla V100 PCIe 16 GB", 3, 1350.0)
    assert fastest.throughput == pytest.approx(3 * 0.85 * 0.9)
    assert result.fastest.money_left_usd == pytest.approx(50.0)
    singles = [r["relative_perf"] for r in ROWS if r["price_usd"] <= 1400 and r["memory_gb"] >= 12]
    assert fastest.throughput > max(singles) and fastest.cost_usd >= 1400 / 2
    assert (result.best_value.setup.model, result.best_value.setup.gpus) == ("GeForce RTX 3060 12 GB", 1)
    assert (result.cheapest.setup.model, result.cheapest.setup.cost_usd) == ("GeForce RTX 3060 12 GB", 230.0)
    assert result.max_gpus == 4 and result.min_memory_gb == 12


def test_measured_scaling_counts_for_its_card_and_count_only():
    measured = ScalingFacts(measured={"Tesla V100 PCIe 16 GB": {3: 0.5, 2: 0.99}})
    result = answer(1400, facts=measured, use_case="research")
    fastest = result.fastest.setup  # 3 V100 at 50% lose to 2 3090s at the assumed 90%
    assert (fastest.model, fastest.gpus) == ("GeForce RTX 3090", 2)
    assert not fastest.scaling.measured and "assumed: no benchmark ran 2 of these cards" in fastest.scaling.words
    v100 = setup_scaling("Tesla V100 PCIe 16 GB", 3, measured)
    assert (v100.efficiency, v100.measured) == (0.5, True)
    assert setup_scaling("Tesla V100 PCIe 16 GB", 4, measured).efficiency == 0.9  # 4 was never measured
    assert setup_scaling("x", 1, measured).efficiency == 1.0
    with pytest.raises(ValueError, match="efficiency"):
        ScalingFacts(assumed_efficiency=1.2)


def test_beginner_and_kaggle_get_one_card_unless_they_ask_for_more():
    kaggle = answer(1400, use_case="kaggle")
    assert kaggle.max_gpus == 1 and all(a.setup.gpus == 1 for a in kaggle.answers())
    assert kaggle.fastest.setup.model == "GeForce RTX 3090"
    assert any(a.startswith("one card: one card for kaggle (--max-gpus N compares more)") for a in kaggle.assumptions)
    asked = answer(1400, use_case="kaggle", max_gpus=3)
    assert (asked.fastest.setup.model, asked.fastest.setup.gpus) == ("Tesla V100 PCIe 16 GB", 3)
    research = answer(1400, use_case="research", workstation_gpus=2)  # GPUVALUE_MAX_GPUS=2
    assert research.fastest.setup.gpus == 2


def test_a_fixed_count_compares_with_the_fastest_single_card():
    result = answer(1400, gpus=2, min_memory_gb=24)
    assert all(a.setup.gpus == 2 for a in result.answers())
    assert (result.fastest.setup.model, result.single.model) == ("GeForce RTX 3090", "GeForce RTX 3090")
    assert any(n.startswith("2x GeForce RTX 3090 gives 1.80x the throughput of one GeForce RTX 3090") for n in result.notes)
    assert "exactly 2 cards a setup (--gpus)" in result.assumptions


def test_the_machine_around_the_cards_counts_where_given_and_is_said():
    bare = answer(1400, use_case="research")
    assert any(a.startswith("cards only: the machine around them") for a in bare.fastest.assumptions)
    boxed = answer(1400, use_case="research", platform_cost_usd=1000)
    fastest = boxed.fastest.setup  # $400 left for cards: one 3060
    assert (fastest.model, fastest.gpus, fastest.cost_usd, fastest.platform_usd) == ("GeForce RTX 3060 12 GB", 1, 1230.0, 1000.0)
    assert boxed.fastest.money_left_usd == pytest.approx(170.0)
    assert "cost counts $1,000 for the machine around the cards" in boxed.fastest.assumptions
    # A machine to pay for makes more cards in it the better value: 4 V100s spread $1,500 over 3.06x.
    lab = answer(5000, use_case="research", platform_cost_usd=1500, extra_gpu_cost_usd=0)
    assert (lab.best_value.setup.model, lab.best_value.setup.gpus) == ("Tesla V100 PCIe 16 GB", 4)
    slots = answer(5000, use_case="research", platform_cost_usd=1500, extra_gpu_cost_usd=400)
    assert slots.fastest.setup.platform_usd == 1500 + 400 * (slots.fastest.setup.gpus - 1)


def test_nothing_fits_is_three_empty_answers_that_say_why():
    result = answer(100, use_case="research")
    assert [a.setup for a in result.answers()] == [None, None, None]
    why = ("nothing with at least 12 GB a card fits $100: the cheapest setup is GeForce RTX 3060 12 GB at $230, "
           "price: median of 57 sold listings as of 2024-05-08")
    assert {a.why for a in result.answers()} == {why}
    doc = answers_json(result)
    assert doc["fastest"] == {"model": None, "gpus": None, "cost_usd": None, "throughput": None,
                              "money_left_usd": None, "new_price": None, "assumptions": doc["fastest"]["assumptions"],
                              "why": why, "money_left_text": None, "setup_assumptions": []}
    assert doc["fastest"]["assumptions"]  # still says what it assumed
    assert answer(500, min_memory_gb=200).cheapest.why == "no ranked card with at least 200 GB a card is usable today"
    text = format_budget_answers(result)
    assert f"Fastest, best value and cheapest: none; {why}" in text.splitlines()  # one line for the three


def test_the_json_entries_carry_the_public_fields():
    doc = answers_json(answer(1400, use_case="research"))
    for kind in ("fastest", "best_value", "cheapest"):
        assert {"model", "gpus", "cost_usd", "throughput", "money_left_usd", "assumptions", "why"} <= set(doc[kind])
    assert (doc["fastest"]["model"], doc["fastest"]["gpus"], doc["fastest"]["cost_usd"]) == ("Tesla V100 PCIe 16 GB", 3, 1350.0)
    assert doc["fastest"]["throughput"] == pytest.approx(2.295) and doc["fastest"]["money_left_usd"] == 50.0
    assert any("90%" in a for a in doc["fastest"]["assumptions"])
    assert (doc["budget_usd"], doc["use_case"], doc["max_gpus"], doc["gpus"]) == (1400, "research", 4, None)


def test_electricity_counts_over_the_one_ownership_horizon():
    result = answer(700, use_case="llm", kwh_price=0.30, hours_per_day=8, ownership_months=24)
    yearly_3090 = 350 / 1000 * 8 * 365 * 0.30
    best = result.best_value.setup
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


def test_answers_within_each_others_interval_are_said_to_be():
    rows = [dict(r, perf_low=r["relative_perf"] * 0.8, perf_high=r["relative_perf"] * 1.25) for r in ROWS]
    result = answer(700, rows=rows, use_case="llm")  # fastest 3090 (1.00) and best value 7900 XTX (0.90)
    assert (result.fastest.setup.model, result.best_value.setup.model) == ("GeForce RTX 3090", "Radeon RX 7900 XTX")
    assert any("are within each other's interval" in n for n in result.notes), result.notes
    assert answers_json(result)["fastest"]["throughput_low"] == pytest.approx(0.8)
    assert not any("interval" in n for n in answer(700, use_case="llm").notes)  # no intervals, nothing said


def test_older_prices_are_compared_only_when_no_recent_one_fits():
    aged = [dict(r, price_tier="older" if r["model"] == "Tesla V100 PCIe 16 GB" else "recent",
                 price_age_days=900 if r["model"] == "Tesla V100 PCIe 16 GB" else 3) for r in ROWS]
    result = answer(1400, rows=aged, use_case="research")
    assert all(a.setup.model != "Tesla V100 PCIe 16 GB" for a in result.answers())
    assert any("priced only long before the newest price are not compared" in n for n in result.notes)
    every_older = [dict(r, price_tier="older", price_age_days=900) for r in ROWS]
    old = answer(1400, rows=every_older, use_case="research")
    assert old.fastest.setup.model == "Tesla V100 PCIe 16 GB" and "old)" in old.fastest.why


def test_cards_a_buyer_cannot_use_never_answer_and_are_counted():
    result = answer(100_000)
    models = {a.setup.model for a in result.answers()}
    assert not models & {"Tesla K80", "H100 SXM5 80 GB"}
    assert any(n.startswith("left out 2 ranked card(s)") for n in result.notes)
    modules = answer(100_000, view=__import__("gpuvalue.models.buyer_view", fromlist=["BuyerView"]).BuyerView(
        include_modules=True))
    assert modules.fastest.setup.model == "H100 SXM5 80 GB"


def test_the_use_cases_precision_is_used_where_the_ranking_has_it():
    fp32 = [dict(row, perf_precision="fp32", relative_perf=row["relative_perf"] * 0.5) for row in ROWS]
    result = answer(500, rows=ROWS + fp32, use_case="research")
    assert result.cheapest.setup.relative_perf == pytest.approx(0.45 * 0.5)
    assert any("prefers fp32" in a for a in answer(500, use_case="research").assumptions)


def test_the_text_gives_each_answer_its_reason_and_the_unpriced_cards():
    missing = [Unpriced(model="GeForce RTX 5070", memory_gb=12.0, relative_perf=0.76, perf_source="estimate",
                        launch_price_usd=549.0, release_date=date(2025, 3, 4), why="no used price")]
    result = budget_answers(ROWS, FACTS, AnswerOptions(budget_usd=1400, use_case="research"), unpriced=missing)
    lines = format_budget_answers(result).splitlines()
    assert lines[0] == "Budget $1,400 for research, at least 12 GB a card, 1 to 4 cards"
    assert lines[1] == "Fastest: 3x Tesla V100 PCIe 16 GB, $1,350, throughput 2.29x; $50 left"
    assert lines[2].startswith("   1.70 perf per $1k; 16 GB per card meets the research minimum of 12 GB")
    assert "   scaling 90% per card, assumed: no benchmark ran 3 of these cards (GPUVALUE_MULTI_GPU_EFFICIENCY)" in lines
    assert "Best value and cheapest: GeForce RTX 3060 12 GB, $230, throughput 0.45x; $1,170 left" in lines
    assert any("not priced, so not compared: GeForce RTX 5070 (12 GB, 0.76x estimated, launched at $549)" in line
               for line in lines)
    assert lines[-2].startswith("Assumed: research: at least 12 GB because")
    assert answers_json(result)["unpriced"][0]["model"] == "GeForce RTX 5070"


def test_bad_options_raise():
    with pytest.raises(ValueError, match="unknown use case"):
        AnswerOptions(budget_usd=500, use_case="gaming")
    with pytest.raises(ValueError, match="budget"):
        AnswerOptions(budget_usd=0)
    with pytest.raises(ValueError, match="gpus"):
        AnswerOptions(budget_usd=500, gpus=0)
