"""The rental offer contract, the price sanity rule and the public JSON of an offer."""

from __future__ import annotations

import json
from datetime import date

import pytest
from pydantic import ValidationError

from gpuvalue.models.rental import PUBLIC_FIELDS, RentalOffer, offer_json, validate_prices


def offer(**changes) -> RentalOffer:
    fields = dict(
        source="test",
        provider="lambda",
        instance_type="gpu_2x_a100",
        gpu_name="A100",
        model="A100 PCIe 40 GB",
        match_reason="matched: name",
        gpu_count=2,
        usd_per_hour=2.58,
        usd_per_gpu_hour=1.29,
        region="us-east-1",
        as_of=date(2025, 3, 7),
    )
    fields.update(changes)
    return RentalOffer(**fields)


def test_offer_is_frozen_and_refuses_unknown_fields():
    o = offer()
    with pytest.raises(ValidationError):
        o.gpu_count = 4  # type: ignore[misc]
    with pytest.raises(ValidationError):
        offer(colour="green")


def test_offer_needs_a_gpu_and_a_price():
    with pytest.raises(ValidationError):
        offer(gpu_count=0)
    with pytest.raises(ValidationError):
        offer(usd_per_hour=None, usd_per_gpu_hour=None, spot_usd_per_gpu_hour=None)
    spot_only = offer(usd_per_hour=None, usd_per_gpu_hour=None, spot_usd_per_hour=1.0, spot_usd_per_gpu_hour=0.5)
    assert spot_only.usd_per_hour is None


def test_validate_prices_keeps_real_prices_and_says_why_it_drops_the_rest():
    good = offer()
    cheap_spot = offer(instance_type="spot", spot_usd_per_hour=0.6, spot_usd_per_gpu_hour=0.3)
    zero = offer(instance_type="zero", usd_per_hour=0.0, usd_per_gpu_hour=0.0)
    negative = offer(instance_type="negative", usd_per_gpu_hour=-1.0)
    absurd = offer(instance_type="absurd", usd_per_hour=900.0, usd_per_gpu_hour=450.0)
    tiny = offer(instance_type="tiny", usd_per_hour=0.01, usd_per_gpu_hour=0.005)
    zero_spot = offer(instance_type="zero-spot", spot_usd_per_hour=0.0, spot_usd_per_gpu_hour=0.0)
    euros = offer(instance_type="euros", currency="EUR")
    not_a_number = offer(instance_type="nan", usd_per_hour=float("nan"), usd_per_gpu_hour=float("nan"))

    kept, dropped = validate_prices([good, zero, cheap_spot, negative, absurd, tiny, zero_spot, euros, not_a_number])

    assert kept == [good, cheap_spot]
    reasons = {o.instance_type: why for o, why in dropped}
    assert list(reasons) == ["zero", "negative", "absurd", "tiny", "zero-spot", "euros", "nan"]
    assert "not a price" in reasons["nan"]
    assert "not a price" in reasons["zero"] and "not a price" in reasons["negative"]
    assert "over $200" in reasons["absurd"]
    assert "under $0.01" in reasons["tiny"]
    assert "spot" in reasons["zero-spot"]
    assert reasons["euros"].startswith("currency EUR")


def test_offer_json_starts_with_the_public_fields_in_order():
    data = offer_json(offer())
    assert tuple(data)[: len(PUBLIC_FIELDS)] == PUBLIC_FIELDS == (
        "provider", "instance_type", "gpu_name", "model", "gpu_count",
        "usd_per_hour", "usd_per_gpu_hour", "spot_usd_per_gpu_hour", "region",
    )
    assert data["as_of"] == "2025-03-07"
    assert data["spot_usd_per_gpu_hour"] is None
    assert json.loads(json.dumps(data)) == data
