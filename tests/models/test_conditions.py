from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.conditions import classify_condition


@pytest.mark.parametrize(
    ("condition", "expected"),
    [
        ("Used", "used"),
        ("Pre-owned", "used"),
        ("Pre-Owned", "used"),
        ("Gebraucht", "used"),
        ("Open box", "open_box"),
        ("New (Other)", "open_box"),
        ("Seller refurbished", "refurbished"),
        ("Certified - Refurbished", "refurbished"),
        ("Certified refurbished", "refurbished"),
        ("Excellent - Refurbished", "refurbished"),
        ("Very Good - Refurbished", "refurbished"),
        ("Sehr gut - Refurbished", "refurbished"),
        ("Hervorragend - Refurbished", "refurbished"),
        ("For parts or not working", "parts"),
        ("New", "new"),
        ("Brand New", "new"),
        ("Brand new", "new"),
        ("Brandneu", "new"),
        ("Nuovo", "new"),
        ("  NEW  ", "new"),
        ("Unused", "unknown"),
        ("Graded", "unknown"),
    ],
)
def test_stated_conditions(condition, expected):
    assert classify_condition(condition) == expected


def test_stated_condition_wins_over_title():
    assert classify_condition("Used", "BRAND NEW SEALED RTX 3090") == "used"
    assert classify_condition("Open box", "RTX 3090 for parts") == "open_box"


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("RTX 3080 FTW3 - for parts, no video", "parts"),
        ("Tesla V100 16GB refurbished", "refurbished"),
        ("RTX 4090 Founders Edition BNIB", "new"),
        ("RTX 3070 open box", "open_box"),
        ("GTX 1080 Ti, used for gaming", "used"),
        ("RTX 3090 24GB", "unknown"),
    ],
)
def test_missing_condition_reads_title(title, expected):
    assert classify_condition(None, title) == expected
    assert classify_condition("", title) == expected


@settings(max_examples=examples(100), deadline=None)
@given(st.one_of(st.none(), st.text()), st.text())
def test_always_one_of_the_classes(condition, title):
    assert classify_condition(condition, title) in {"used", "refurbished", "open_box", "new", "parts", "unknown"}
