"""Properties of recommend's answers over random rankings, budgets, memory floors, vendors and use cases:
more money never buys a slower fastest, the cheapest is the same at every budget that affords it, and no
answer breaks the power, slot or framework rules."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.budget_answers import AnswerOptions, budget_answers, is_ampere_cuda
from gpuvalue.models.builds import SIDE_BY_SIDE, slot_width
from gpuvalue.models.framework_support import stack_support
from gpuvalue.models.multi_gpu import ClassScaling, ScalingFacts
from gpuvalue.models.recommend import USE_CASES

ARCHITECTURES = {"NVIDIA": ["Turing", "Ampere", "Ada Lovelace", "Blackwell 2.0", "Pascal"],
                 "AMD": ["RDNA 2.0", "RDNA 3.0"], "Intel": ["Xe-HPG"]}
AMD_NAMES = ["Radeon RX 7900 XTX", "Radeon RX 7600 XT", "Radeon RX 6700 XT", "Radeon RX 7800 XT"]
FACTS = ScalingFacts(measured={"card 1": {2: 0.95, 3: 0.5}},
                     classes={"desktop": ClassScaling(0.8, 0.71, 0.88, 11), "datacenter": ClassScaling(0.95, 0.9, 0.97, 20)})


@st.composite
def card(draw, i: int) -> dict:
    vendor = draw(st.sampled_from(list(ARCHITECTURES)))
    arch = draw(st.sampled_from(ARCHITECTURES[vendor]))
    model = draw(st.sampled_from(AMD_NAMES)) + f" #{i}" if vendor == "AMD" and draw(st.booleans()) else f"card {i}"
    if vendor == "AMD" and draw(st.booleans()):
        model = draw(st.sampled_from(AMD_NAMES))  # a listed or unlisted real name
    if vendor == "Intel":
        model = f"Arc A770 #{i}"
    perf = draw(st.floats(0.05, 3.0))
    return {
        "as_of": None, "rank": i, "model": model, "vendor": vendor, "architecture": arch,
        "segment": draw(st.sampled_from(["desktop", "desktop", "workstation", "datacenter"])),
        "memory_gb": float(draw(st.sampled_from([6, 8, 10, 12, 16, 20, 24, 32, 48]))),
        "relative_perf": perf, "perf_low": perf * 0.85, "perf_high": perf * 1.2, "perf_source": "estimate",
        "perf_method": "estimate", "perf_precision": "fp16", "reference_gpu": "GeForce RTX 3090",
        "price_usd": draw(st.floats(80, 6000)), "price_kind": "asking", "price_n": draw(st.integers(1, 40)),
        "price_as_of": None, "price_age_days": draw(st.integers(0, 1500)), "stale": draw(st.booleans()),
        "price_tier": draw(st.sampled_from(["recent", "older"])),
        "tdp_w": draw(st.sampled_from([None, 75, 170, 250, 350, 450, 575, 700])),
        "slot_width": draw(st.sampled_from([None, "Single-slot", "Dual-slot", "Triple-slot", "Quad-slot"])),
        "compute_capability": "8.6" if arch in ("Ampere", "Ada Lovelace", "Blackwell 2.0") and vendor == "NVIDIA" else None,
        "framework_support": draw(st.sampled_from(["current", "current", "current", "legacy", "none"])),
        "desktop_usable": True, "passive": False,
    }


@st.composite
def ranking(draw) -> list[dict]:
    rows = [draw(card(i)) for i in range(draw(st.integers(1, 10)))]
    seen, out = set(), []
    for row in rows:  # one row a model, as the ranking has
        if row["model"] not in seen:
            seen.add(row["model"])
            out.append(row)
    return out


QUESTION = {
    "use_case": st.sampled_from([None, *USE_CASES]),
    "vendor": st.sampled_from([None, "NVIDIA", "AMD", "Intel"]),
    "min_memory_gb": st.sampled_from([None, 0.0, 8.0, 12.0, 16.0, 24.0, 40.0]),
    "include_legacy": st.booleans(),
}


def answers(rows, budget, use_case, vendor, min_memory_gb, include_legacy):
    from gpuvalue.models.buyer_view import BuyerView

    options = AnswerOptions(budget_usd=budget, use_case=use_case, vendor=vendor, min_memory_gb=min_memory_gb,
                            view=BuyerView(include_legacy=include_legacy))
    return budget_answers(rows, FACTS, options)


@settings(max_examples=examples(200), deadline=None)
@given(rows=ranking(), low=st.floats(100, 20000), more=st.floats(0, 20000), **QUESTION)
def test_more_money_never_buys_a_slower_fastest_and_the_cheapest_stays(rows, low, more, use_case, vendor,
                                                                       min_memory_gb, include_legacy):
    a = answers(rows, low, use_case, vendor, min_memory_gb, include_legacy)
    b = answers(rows, low + more, use_case, vendor, min_memory_gb, include_legacy)
    if a.fastest.setup is not None:
        assert b.fastest.setup is not None and b.fastest.setup.throughput >= a.fastest.setup.throughput
        assert (b.cheapest.setup.model, b.cheapest.setup.gpus) == (a.cheapest.setup.model, a.cheapest.setup.gpus)


@settings(max_examples=examples(200), deadline=None)
@given(rows=ranking(), budget=st.floats(100, 30000), power=st.sampled_from([1440.0, 1600.0, 3000.0]), **QUESTION)
def test_no_answer_breaks_the_power_slot_or_framework_rules(rows, budget, power, use_case, vendor, min_memory_gb,
                                                            include_legacy):
    from gpuvalue.models.buyer_view import BuyerView

    options = AnswerOptions(budget_usd=budget, use_case=use_case, vendor=vendor, min_memory_gb=min_memory_gb,
                            view=BuyerView(include_legacy=include_legacy), power_limit_w=power)
    result = budget_answers(rows, FACTS, options)
    same_card = {}
    for s in result.table:  # never N cards slower than fewer of the same card
        assert s.throughput > max(same_card.get(s.model, [0.0]))
        same_card.setdefault(s.model, []).append(s.throughput)
    for answer in result.answers():
        s = answer.setup
        if s is None:
            continue
        assert s.cost_usd <= budget + 1e-6
        assert s.system_power_w is None or s.system_power_w <= power + 1e-6
        width = slot_width(s.row.get("slot_width"))
        if s.gpus > 1 and (width is None or width > SIDE_BY_SIDE.get(s.gpus, 1)):
            assert s.build.riser and any(a.startswith("slots: ") and "riser build" in a for a in answer.own)
        support = stack_support(s.row)
        if vendor is None:
            assert support.linux == "supported"
        else:
            assert s.vendor == vendor and support.linux != "none"
        if use_case == "beginner" and vendor in (None, "NVIDIA"):
            assert is_ampere_cuda(s.row)
        floor = max(f for f in (min_memory_gb if min_memory_gb is not None else 6.0,
                                USE_CASES[use_case].min_memory_gb if use_case else 0.0))
        assert s.memory_gb >= floor
        if s.row.get("framework_support") == "legacy":
            assert include_legacy
        if support.stack != "cuda":
            assert any(a.startswith(("AMD card", "Intel card")) for a in answer.own)


@settings(max_examples=examples(200), deadline=None)
@given(rows=ranking(), low=st.floats(100, 20000), more=st.floats(0, 20000),
       params=st.sampled_from([3.5e8, 1.5e9, 8e9, 13e9, 70e9]), method=st.sampled_from(["full", "lora", "qlora"]),
       use_case=st.sampled_from([None, "llm", "research", "kaggle"]), vendor=st.sampled_from([None, "NVIDIA", "AMD"]))
def test_a_fine_tune_is_sharded_by_card_count_and_stays_monotone_in_the_budget(rows, low, more, params, method,
                                                                               use_case, vendor):
    """With --model-params each setup's cards hold the need at that card count (sharded across them) and
    have matrix units; more money still never buys a slower fastest, and the cheapest stays."""
    from gpuvalue.models.finetune_memory import finetune_memory
    from gpuvalue.models.matrix_units import has_matrix_units

    need = finetune_memory(params, method)
    a, b = (budget_answers(rows, FACTS, AnswerOptions(budget_usd=budget, use_case=use_case, vendor=vendor,
                                                      finetune=need))
            for budget in (low, low + more))
    floors = need.floors(4)
    assert list(floors) == sorted(floors, reverse=True)
    for answer in a.answers() + b.answers():
        s = answer.setup
        if s is not None:
            assert has_matrix_units(s.row)
            assert s.memory_gb >= floors[s.gpus - 1] - 1e-9
            assert s.memory_gb >= (USE_CASES[use_case].min_memory_gb if use_case else 6.0)
    if a.fastest.setup is not None:
        assert b.fastest.setup is not None and b.fastest.setup.throughput >= a.fastest.setup.throughput
        assert (b.cheapest.setup.model, b.cheapest.setup.gpus) == (a.cheapest.setup.model, a.cheapest.setup.gpus)
