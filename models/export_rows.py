"""The row of each ranking download, as one contract: its fields, their order, types and bounds.

``ranking.csv``, ``ranking.json``'s rows and ``ranking.parquet`` all write these fields: the CSV its
columns (every field but the JSON-only ones), the JSON rows and the Parquet file every field, in
this order (warehouse/outputs/export.py reads the lists from here; sql/ranking_day_parquet.sql selects the
same). tests/warehouse/test_export_contract.py holds the published JSON Schema's rows, the Parquet
columns and the warehouse's ``ranking_daily`` columns (types and nullability) to this model, so an
output column added in one place and not the others fails there.
"""

from __future__ import annotations

from datetime import date
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

Segment = Literal["desktop", "workstation", "datacenter", "mobile", "integrated", "other"]


class ExportRow(BaseModel):
    """A download's row: the CSV's columns are its fields but ``JSON_ONLY``, the JSON rows all of them."""

    model_config = ConfigDict(extra="forbid")

    JSON_ONLY: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def json_fields(cls) -> tuple[str, ...]:
        return tuple(cls.model_fields)

    @classmethod
    def csv_columns(cls) -> tuple[str, ...]:
        return tuple(name for name in cls.model_fields if name not in cls.JSON_ONLY)


class RankingRow(ExportRow):
    """One card of one day's ranking (``ranking_daily``). Fields added since schema 1.0 come after
    the first ones and default to None: files written before them stay valid."""

    rank: int = Field(ge=1)
    model: str = Field(min_length=1)
    vendor: str | None
    architecture: str | None
    segment: Segment | None
    memory_gb: float | None = Field(ge=0)
    bandwidth_gb_s: float | None = Field(ge=0)
    price_usd: float = Field(gt=0)
    price_kind: Literal["sold", "asking", "launch", "index"]
    price_n: int = Field(ge=0)
    price_q1: float | None
    price_q3: float | None
    price_as_of: date
    stale: bool
    relative_perf: float = Field(gt=0)
    perf_source: str = Field(min_length=1)
    perf_per_dollar: float = Field(ge=0)
    framework_supported: bool | None
    desktop_usable: bool | None
    reference_gpu: str = Field(min_length=1)
    as_of: date
    # Since schema 1.1: the support level, the fan kit, and where and how old the price is.
    framework_support: Literal["current", "legacy", "none"] | None = None
    passive: bool | None = None
    price_source: str | None = None
    price_age_days: int | None = None
    price_tier: Literal["recent", "older"] | None = None
    # Since schema 1.2: the 80% interval of relative_perf, on its scale.
    perf_low: float | None = Field(default=None, gt=0)
    perf_high: float | None = Field(default=None, gt=0)
    # The JSON rows' and Parquet's own: what a program needs to judge a number.
    perf_method: str | None
    perf_precision: Literal["fp16", "fp32"]
    tdp_w: int | None = Field(ge=0)

    JSON_ONLY: ClassVar[tuple[str, ...]] = ("perf_method", "perf_precision", "tdp_w")


Tier = Literal["recent", "older"]


class RentalRow(ExportRow):
    """One card of the newest rental ranking (``rent_ranking_latest``): the rows of rental_ranking.csv,
    .json and .parquet. Ranked on demand (``rank``) and on spot apart (``spot_rank``); a card priced
    only on spot has no ``rank``."""

    rank: int | None = Field(ge=1)
    spot_rank: int | None = Field(ge=1)
    model: str = Field(min_length=1)
    vendor: str | None
    segment: str | None
    memory_gb: float | None = Field(ge=0)
    relative_perf: float = Field(gt=0)
    perf_source: str = Field(min_length=1)
    perf_precision: Literal["fp16", "fp32"]
    reference_gpu: str = Field(min_length=1)
    usd_per_gpu_hour: float | None = Field(gt=0)
    provider: str | None
    instance_type: str | None
    gpu_count: int | None = Field(ge=1)
    median_usd_per_gpu_hour: float | None = Field(gt=0)
    perf_per_usd_hour: float | None = Field(gt=0)
    usd_per_reference_hour: float | None = Field(gt=0)
    spot_usd_per_gpu_hour: float | None = Field(gt=0)
    spot_provider: str | None
    spot_perf_per_usd_hour: float | None = Field(gt=0)
    spot_usd_per_reference_hour: float | None = Field(gt=0)
    provider_count: int = Field(ge=1)
    providers: str = Field(min_length=1)
    price_as_of: date
    spot_as_of: date | None
    framework_supported: bool | None
    as_of: date
    price_tier: Tier | None
    price_age_days: int | None
    spot_tier: Tier | None
    spot_age_days: int | None
    framework_support: Literal["current", "legacy", "none"] | None


class RentVsBuyRow(ExportRow):
    """One rental card against buying it used (rent_vs_buy.csv, rental_ranking.json's rent_vs_buy):
    models/rent_vs_buy.py computes it under the assumptions the row repeats."""

    model: str = Field(min_length=1)
    relative_perf: float = Field(gt=0)
    usd_per_gpu_hour: float | None = Field(gt=0)
    provider: str | None
    rental_as_of: date
    used_price_usd: float | None = Field(gt=0)
    used_price_kind: Literal["sold", "asking", "index"] | None
    used_price_n: int | None = Field(ge=0)
    used_price_as_of: date | None
    used_price_stale: bool | None
    tdp_w: float | None = Field(ge=0)
    rent_usd_per_reference_hour: float | None = Field(gt=0)
    spot_usd_per_reference_hour: float | None = Field(gt=0)
    buy_usd_per_reference_hour: float | None = Field(gt=0)
    electricity_usd_per_hour: float | None
    break_even_hours_per_week: float | None = Field(gt=0)
    cheaper: Literal["buy", "rent"] | None
    holding_months: float
    resale_fraction: float
    kwh_price_usd: float
    hours_per_week: float
