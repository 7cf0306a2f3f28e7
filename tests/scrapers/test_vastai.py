"""vast.ai's offer search as recorded (tests/fixtures/cloud/vastai: 1,396 real offers of 2024-11-05)."""

from __future__ import annotations

import gzip
import json
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from gpuvalue.models.offer_matching import match_offers
from gpuvalue.models.rental import validate_prices
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import vastai

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
AS_OF = date(2024, 11, 5)


def raw() -> list[dict]:
    return json.loads(gzip.decompress((FIXTURES / vastai.FIXTURE).read_bytes()))


def parse(data: object = None):
    body = gzip.decompress((FIXTURES / vastai.FIXTURE).read_bytes()) if data is None else json.dumps(data).encode()
    return match_offers(vastai.parse_vastai_offers(body, vastai.SEARCH_URL, AS_OF))  # matched as the enrich stage does


def test_every_recorded_offer_is_one_offer_with_real_prices():
    offers = parse()
    assert len(offers) == 1396
    kept, dropped = validate_prices(offers)
    assert dropped == []
    assert all(o.source == "vastai" and o.provider == "vast" and o.as_of == AS_OF for o in offers)
    assert len({o.instance_type for o in offers}) == 1396  # each offer its own, by its id


def test_the_price_of_a_multi_gpu_offer_is_divided_by_its_gpus():
    """dph_total prices the whole offer: an 8x RTX 4090 at $3.20/h is $0.40 per GPU-hour."""
    by_id = {o["id"]: o for o in raw()}
    offers = parse()
    multi = [o for o in offers if o.gpu_count >= 4]
    assert multi
    for offer in multi[:20]:
        source = by_id[int(offer.instance_type.rsplit(" ", 1)[1].rstrip(")"))]
        assert offer.usd_per_hour == pytest.approx(source["dph_total"])
        assert offer.usd_per_gpu_hour == pytest.approx(source["dph_total"] / source["num_gpus"], abs=1e-6)


def test_the_interruptible_price_is_the_minimum_bid_plus_the_disk():
    first = raw()[0]  # RTX 4090, dph_total 0.16806 = dph_base 0.16667 + disk; min_bid 0.16
    offer = parse()[0]
    disk = first["dph_total"] - first["dph_base"]
    assert offer.spot_usd_per_gpu_hour == pytest.approx(first["min_bid"] + disk, abs=1e-6)
    assert offer.spot_usd_per_gpu_hour < offer.usd_per_gpu_hour


def test_a_minimum_bid_at_or_above_the_on_demand_price_is_no_spot_price():
    """The second recorded offer: on demand $0.207/h, minimum bid $0.289/h. Nobody rents that interruptible."""
    second = raw()[1]
    assert second["min_bid"] > second["dph_total"]
    assert parse()[1].spot_usd_per_gpu_hour is None
    offers = parse()
    assert sum(o.spot_usd_per_gpu_hour is None for o in offers) == 350  # a quarter: bids at the price or above


def test_reliability_verification_and_vast_score_are_kept_as_published():
    offers = parse()
    assert Counter(o.verified for o in offers) == {True: 629, False: 583 + 184}  # deverified is not verified
    first = parse()[0]
    assert first.reliability == pytest.approx(0.9985116)
    assert first.extras["dlperf"] == pytest.approx(106.064, abs=1e-3)  # vast's DLPerf, whole offer
    assert first.gpu_memory_gb == 24.0  # 24,564 MiB per GPU
    assert all(o.reliability is None or 0 <= o.reliability <= 1 for o in offers)


def test_vast_names_match_catalog_models():
    offers = parse()
    models = {o.gpu_name: o.model for o in offers if o.model}
    assert models["RTX 4070S Ti"] == "GeForce RTX 4070 Ti SUPER"
    assert models["Q RTX 6000"] == "Quadro RTX 6000"
    assert models["RTX 6000Ada"] == "RTX 6000 Ada Generation"
    assert models["GTX 1080 Ti"] == "GeForce GTX 1080 Ti"
    assert models["H100 NVL"] == "H100 NVL 94 GB"
    laptops = {o.model for o in offers if o.gpu_name == "RTX 3060 laptop"}
    assert laptops == {None}  # a laptop chip runs at its laptop's power limit: no one model
    assert sum(o.model is not None for o in offers) / len(offers) > 0.95


def test_the_api_answer_and_the_bare_list_both_read():
    offers = raw()[:3]
    assert [o.instance_type for o in parse({"offers": offers})] == [o.instance_type for o in parse(offers)]


def test_rented_or_unrentable_offers_are_skipped():
    offers = raw()[:3]
    offers[0] = {**offers[0], "rented": True}
    offers[1] = {**offers[1], "rentable": False}
    assert len(parse(offers)) == 1


@pytest.mark.parametrize("bad", [
    {"id": 1, "gpu_name": "RTX 4090", "num_gpus": 0, "dph_total": 0.3},
    {"id": 1, "gpu_name": "RTX 4090", "num_gpus": 1},
    {"id": 1, "gpu_name": "RTX 4090", "num_gpus": 1, "dph_total": "cheap"},
    {"id": 1, "gpu_name": "RTX 4090", "num_gpus": 1, "dph_total": 0.3, "reliability2": 7},
    "not an offer",
])
def test_a_broken_offer_is_a_parse_error(bad):
    with pytest.raises(ParseError):
        parse([bad])


@pytest.mark.parametrize("body", [b"", b"<html>sign in</html>", b'{"error": "rate limited"}', b'{"offers": 3}'])
def test_an_answer_that_is_not_offers_is_a_parse_error(body):
    with pytest.raises(ParseError):
        vastai.parse_vastai_offers(body, vastai.SEARCH_URL, AS_OF)


def test_the_replay_recording_is_the_fixture_under_the_live_url():
    [recording] = list(vastai._replay(FIXTURES))
    assert recording.page.url == vastai.SEARCH_URL
    assert recording.page.fetched_at.date() == AS_OF
    assert len(vastai.SOURCE.parse(recording.page).records) == 1396
