"""The words every recommendation shares: how far a pick's price and speed can be trusted.

The answers themselves are tests/models/test_budget_answers.py's."""

from datetime import date

import pytest
from gpuvalue.models.recommend import USE_CASES, perf_provenance, price_confidence, use_case_floor_words


def test_every_use_case_says_why_it_needs_its_memory():
    for use_case, preset in USE_CASES.items():
        assert use_case_floor_words(use_case).startswith(f"{use_case}: at least {preset.min_memory_gb:g} GB because ")


@pytest.mark.parametrize(
    ("row", "level", "words"),
    [
        ({"price_kind": "sold", "price_n": 31, "price_as_of": date(2024, 5, 8), "stale": False}, "high",
         "median of 31 sold listings as of 2024-05-08"),
        ({"price_kind": "sold", "price_n": 4, "price_as_of": None, "stale": False}, "medium",
         "median of only 4 sold listings"),
        ({"price_kind": "sold", "price_n": 1, "price_as_of": None, "stale": False}, "low", "1 sold price"),
        ({"price_kind": "asking", "price_n": 12, "price_as_of": None, "stale": False}, "medium",
         "asking prices (12 listings); sold prices are usually lower"),
        ({"price_kind": "launch", "price_n": 0, "price_as_of": date(2019, 10, 29), "stale": True}, "low",
         "stale launch price as of 2019-10-29"),
        ({"price_kind": "launch", "price_n": 0, "price_as_of": date(2024, 1, 8), "stale": False}, "low",
         "launch price as of 2024-01-08, no market data"),
    ],
)
def test_price_confidence(row, level, words):
    assert price_confidence(row) == (level, words)


def test_every_pick_says_where_its_speed_comes_from():
    """A recommendation never shows an estimate, or a low-confidence one, as if it were measured."""
    assert perf_provenance({"perf_source": "lambda-pytorch-2024", "perf_method": "measured: ..."}) == (
        "speed measured (lambda-pytorch-2024)")
    assert perf_provenance({"perf_source": "local", "perf_method": "local: ..."}) == "speed measured on this machine"
    assert perf_provenance({"perf_source": "estimate", "perf_method": "estimate: roofline v3"}) == "speed estimated from specs"
    pascal = {"perf_source": "estimate", "perf_method": "estimate: roofline v3; low confidence: the model puts this "
              "family's measured GeForce GTX 1080 Ti at 0.49x the measured figure, so its estimates are likely low"}
    assert perf_provenance(pascal) == "speed estimated from specs, low confidence (likely too low)"
    amd = {"perf_source": "estimate", "perf_method": "estimate: roofline v3; low confidence: AMD"}
    assert perf_provenance(amd) == "speed estimated from specs, low confidence"
    assert perf_provenance({}) == ""
