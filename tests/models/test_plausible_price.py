"""A card's plausible price: wide around its launch price, else bounded by its memory, always within a
single GPU's outer bounds; a price outside it is a wrong rate, amount or match, never the card's."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.models.plausible_price import (
    ANY_CARD, MAX_PRICE_USD, MIN_PRICE_USD, card_price_range,
)

launch_prices = st.floats(MIN_PRICE_USD, MAX_PRICE_USD, allow_nan=False)
memories = st.none() | st.floats(allow_nan=True, allow_infinity=True)
segments = st.sampled_from([None, "desktop", "workstation", "datacenter", "mobile", "integrated", "other"])


@settings(max_examples=examples(300))
@given(launch=launch_prices, memory=memories, segment=segments)
def test_every_cards_range_contains_its_launch_price(launch, memory, segment):
    bounds = card_price_range(launch, memory, segment)
    assert bounds.holds(launch)
    assert MIN_PRICE_USD <= bounds.low <= bounds.high <= MAX_PRICE_USD


@settings(max_examples=examples(300))
@given(launch=st.none() | st.floats(allow_nan=True, allow_infinity=True), memory=memories, segment=segments)
def test_every_range_lies_within_a_single_gpus_outer_bounds(launch, memory, segment):
    bounds = card_price_range(launch, memory, segment)
    assert MIN_PRICE_USD <= bounds.low < bounds.high <= MAX_PRICE_USD


@pytest.mark.parametrize(("launch", "memory", "usd", "plausible"), [
    (1599.0, 24.0, 4.0, False),            # an RTX 4090 at $4: a box, a bracket or a typo
    (1599.0, 24.0, 1250.0, True),          # a used RTX 4090
    (1999.0, 32.0, 4800.0, True),          # an RTX 5090 at 2.4 times its list price (2026)
    (699.0, 12.0, 550_000_000.0, False),   # an RTX 3080 12 GB converted at a rate of 0.000001
    (699.0, 11.0, 150.0, True),            # a GTX 1080 Ti, eight years on
    (749.0, 16.0, 4.0, False),             # an RTX 5070 Ti's empty box
    (None, 24.0, 4.0, False),              # no launch price: a 24 GB card still costs more than $4
    (None, 24.0, 30.0, True),              # a Tesla K80 (24 GB) sells for $30
    (None, 12.0, 550_000_000.0, False),
    (None, 4.0, 5.0, True),
    (None, None, 99_999.0, True),          # nothing known: the outer bounds alone
])
def test_a_price_is_plausible_for_its_card_or_not(launch, memory, usd, plausible):
    assert card_price_range(launch, memory).holds(usd) is plausible


@pytest.mark.parametrize(("launch", "segment", "usd", "plausible"), [
    (5000.0, "datacenter", 30.0, True),    # a Tesla K80 sells for $30
    (5699.0, "datacenter", 180.0, True),   # a Tesla P40 at a thirtieth of its list price
    (5000.0, "workstation", 100.0, True),  # a Quadro K6000
    (5000.0, "datacenter", 20.0, False),
    (1599.0, "desktop", 30.0, False),      # a desktop card's floor is a fiftieth of its launch price
])
def test_a_server_or_workstation_cards_floor_is_lower(launch, segment, usd, plausible):
    assert card_price_range(launch, 24.0, segment).holds(usd) is plausible


def test_an_implausible_launch_price_is_not_the_basis():
    assert card_price_range(0.5, None) == ANY_CARD
    assert card_price_range(math.inf, None) == ANY_CARD
    assert card_price_range(5_000_000.0, 80.0).basis == "a 80 GB card with no launch price"


def test_the_reason_is_one_line_naming_the_card_its_range_and_its_basis():
    reason = card_price_range(1599.0, 24.0).held_out_reason(4.0, "USD", 4.0, None, "GeForce RTX 4090")
    assert reason == ("held out: 4.00 USD converts to $4.00, outside $31.98 to $7,995.00, GeForce RTX 4090's "
                      "plausible price (2% to 5x its $1,599 launch price)")
    assert "\n" not in reason
