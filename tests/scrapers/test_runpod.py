"""RunPod's GraphQL gpuTypes as recorded (tests/fixtures/cloud/runpod: its answer of 2025-06-21)."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from gpuvalue.models.offer_matching import match_offers
from gpuvalue.models.rental import validate_prices
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import runpod

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AS_OF = date(2025, 6, 21)


def raw() -> list[dict]:
    return json.loads((FIXTURES / runpod.FIXTURE).read_bytes())


def parse(data: object = None):
    """The answer's offers, matched as the enrich stage matches them (the parser matches nothing)."""
    body = (FIXTURES / runpod.FIXTURE).read_bytes() if data is None else json.dumps(data).encode()
    return match_offers(runpod.parse_runpod_gpu_types(body, runpod.GRAPHQL_URL, AS_OF))


def offers_by(name: str):
    return {o.region: o for o in parse() if o.gpu_name == name}


def test_one_offer_per_gpu_type_and_cloud_it_is_offered_in():
    offers = parse()
    kept, dropped = validate_prices(offers)
    assert dropped == []
    types = [g for g in raw() if g["id"] != "unknown"]
    assert len(offers) == sum(bool(g["secureCloud"]) + bool(g["communityCloud"]) for g in types)
    assert all(o.gpu_count == 1 and o.usd_per_hour == o.usd_per_gpu_hour for o in offers)


def test_secure_community_and_spot_prices_per_gpu_hour():
    a6000 = offers_by("NVIDIA RTX A6000")
    assert a6000["secure cloud"].usd_per_gpu_hour == 0.49 and a6000["secure cloud"].spot_usd_per_gpu_hour == 0.33
    assert a6000["community cloud"].usd_per_gpu_hour == 0.33 and a6000["community cloud"].spot_usd_per_gpu_hour == 0.25
    assert a6000["secure cloud"].model == "RTX A6000"


def test_a_price_in_a_cloud_that_does_not_carry_the_type_is_a_placeholder():
    """The B200 is secure cloud only; its communityPrice of $0.50 is not an offer."""
    assert set(offers_by("NVIDIA B200")) == {"secure cloud"}
    assert set(offers_by("AMD Instinct MI300X OAM")) == {"secure cloud"}
    a30 = offers_by("NVIDIA A30")  # community only: its secure spot price is not an offer either
    assert set(a30) == {"community cloud"}
    rtx3070 = offers_by("NVIDIA GeForce RTX 3070")["community cloud"]  # securePrice 0: not offered
    assert rtx3070.usd_per_gpu_hour == 0.13 and rtx3070.spot_usd_per_gpu_hour == 0.07


def test_the_short_name_settles_the_form_factor():
    assert {o.model for o in offers_by("NVIDIA H100 80GB HBM3").values()} == {"H100 SXM5 80 GB"}
    assert {o.model for o in offers_by("NVIDIA H200").values()} == {"H200 SXM 141 GB"}
    assert {o.model for o in offers_by("Tesla V100-FHHL-16GB").values()} == {"Tesla V100 FHHL"}
    assert {o.model for o in offers_by("NVIDIA RTX PRO 6000 Blackwell Workstation Edition").values()} == {
        "RTX PRO 6000 Blackwell"}
    assert all(o.model for o in parse())


def test_the_graphql_envelope_and_the_bare_list_both_read():
    assert len(parse({"data": {"gpuTypes": raw()}})) == len(parse(raw()))


@pytest.mark.parametrize("body", [b"", b"<html>", b'{"errors": [{"message": "unauthorized"}]}', b'{"data": {}}',
                                  b'{"data": {"gpuTypes": 5}}'])
def test_an_answer_without_gpu_types_is_a_parse_error(body):
    with pytest.raises(ParseError):
        runpod.parse_runpod_gpu_types(body, runpod.GRAPHQL_URL, AS_OF)


def test_a_price_that_is_not_a_number_is_a_parse_error():
    bad = [{**raw()[1], "securePrice": "1.64"}]
    with pytest.raises(ParseError):
        parse(bad)


def test_the_replay_recording_is_the_fixture_under_the_live_url():
    [recording] = list(runpod._replay(FIXTURES))
    assert recording.page.url == runpod.GRAPHQL_URL and recording.page.fetched_at.date() == AS_OF
    assert len(runpod.SOURCE.parse(recording.page).records) == len(parse())
