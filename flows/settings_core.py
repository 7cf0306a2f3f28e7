"""The shared settings' one definition: each field's type, bounds and meaning.

``Settings`` (flows/settings.py) adds the sources and each source's own settings on top of these
fields and reads them with pydantic-settings; reading commands validate the same fields from the
same variables without pydantic-settings or the sources (``reader_settings``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, field_validator

from gpuvalue.models.budget_answers import DEFAULT_OWNERSHIP_MONTHS
from gpuvalue.models.buyer_view import DEFAULT_MIN_MEMORY_GB
from gpuvalue.models.coverage import DEFAULT_COVERAGE_MIN_MEMORY_GB
from gpuvalue.models.multi_gpu import DEFAULT_MAX_GPUS, DEFAULT_MULTI_GPU_EFFICIENCY
from gpuvalue.models.price_age import DEFAULT_COMPARABLE_DAYS
from gpuvalue.scrapers.bounded import DEFAULT_MAX_DECOMPRESSED_MB, DEFAULT_MAX_RESPONSE_MB

ENV_PREFIX = "GPUVALUE_"
ENV_FILE = ".env"
_SIZE = r"^\s*[0-9]+(\.[0-9]+)?\s*([KMGTkmgt]i?[Bb])\s*$"  # DuckDB's sizes: 1GB, 512MB, 1.5GiB


class CoreFields(BaseModel):
    """Every setting but the sources, validated by pydantic alone: no pydantic-settings, whose
    import cost more than the query a reading command answers."""

    # No nan or inf: GPUVALUE_READ_WAIT_S=nan was refused as "should be less than or equal to 3600".
    model_config = ConfigDict(extra="ignore", allow_inf_nan=False)

    db: Path = Field(default=Path("data/gpuvalue.duckdb"), description="DuckDB database file")
    reference_gpu: str = Field(default="GeForce RTX 3090", description="relative performance 1.0")
    precision: Literal["fp16", "fp32"] = Field(default="fp16", description="training precision ranked")
    price_window_days: int = Field(default=30, ge=1, le=365, description="trailing window for prices")
    price_min_count: int = Field(default=3, ge=1, description="listings needed for a price")
    price_comparable_days: int = Field(
        default=DEFAULT_COMPARABLE_DAYS, ge=1, le=3650,
        description="prices within this many days of the day's newest price rank first; older ones after them")
    min_memory_gb: float = Field(default=DEFAULT_MIN_MEMORY_GB, ge=0,
                                 description="rank, recommend, report and feed show cards with at least this memory")
    coverage_min_memory_gb: float = Field(default=DEFAULT_COVERAGE_MIN_MEMORY_GB, ge=0,
                                          description="the coverage rule's memory floor (the cards shopped for)")
    # A plain comma list ("RTX A4000,Tesla P40") or a JSON list; Settings reads them undecoded.
    coverage_add: tuple[str, ...] = Field(
        default=(), description="catalog models to shop for whatever the coverage rule says")
    coverage_remove: tuple[str, ...] = Field(
        default=(), description="catalog models never to shop for")
    read_wait_s: float = Field(
        default=10.0, ge=0, le=3600,
        description="seconds a reading command (rank, sql, export, ...) waits for a running load before giving up")
    # A load waits for readers (a `gpuvalue sql` query, a duckdb CLI) this long before it gives up: above
    # the longest statement `gpuvalue sql` may run, so that no bounded reader can fail a day's load.
    write_wait_s: float = Field(
        default=120.0, ge=0, le=86400,
        description="seconds a load waits for readers that hold the database before it gives up")
    sql_timeout_s: float = Field(
        default=30.0, gt=0, le=3600, description="seconds one `gpuvalue sql` statement may run")
    sql_memory_limit: str = Field(
        default="1GB", pattern=_SIZE, description="memory one `gpuvalue sql` query may use (DuckDB memory_limit)")
    sql_temp_limit: str = Field(
        default="2GB", pattern=_SIZE,
        description="disk one `gpuvalue sql` query may spill to (DuckDB max_temp_directory_size)")
    # Bytes a response or a decompressed page may hold: a page bigger than any real one is an error or
    # an attack (a gzip bomb expands a thousandfold), and reading it whole would exhaust memory.
    max_response_mb: float = Field(
        default=DEFAULT_MAX_RESPONSE_MB, gt=0, le=4096,
        description="MB of body a response (or a saved page) may have; a larger one is refused")
    max_decompressed_mb: float = Field(
        default=DEFAULT_MAX_DECOMPRESSED_MB, gt=0, le=4096,
        description="MB a compressed page may expand to; a larger one is refused")
    task_runner: Literal["thread", "dask"] = "thread"
    dask_address: str | None = None
    schedule_cron: str = "0 6 * * *"
    schedule_timezone: str = "UTC"
    fail_on_quality_alarm: bool = False
    # Rent or buy (models/rent_vs_buy.py): what the comparison assumes; every output states them.
    # One ownership horizon for resale, electricity and rent or buy: GPUVALUE_OWNERSHIP_MONTHS (its
    # former name GPUVALUE_HOLDING_MONTHS is still read).
    holding_months: float = Field(
        default=DEFAULT_OWNERSHIP_MONTHS, gt=0, le=240,
        validation_alias=AliasChoices("holding_months", "ownership_months", "GPUVALUE_OWNERSHIP_MONTHS",
                                      "GPUVALUE_HOLDING_MONTHS"),
        description="months a bought card is owned: its resale, its electricity, rent or buy")
    resale_fraction: float = Field(default=0.5, ge=0, lt=1, description="its resale value then, share of the price paid")
    kwh_price_usd: float = Field(default=0.15, ge=0, le=10, description="electricity, USD per kWh")
    hours_per_week: float = Field(default=10.0, gt=0, le=168, description="training hours a week")
    # recommend's setups (models/budget_answers.py, models/multi_gpu.py): every answer states them.
    max_gpus: int = Field(default=DEFAULT_MAX_GPUS, ge=1, le=16,
                          description="the most identical cards a recommended setup has (one for beginner and kaggle)")
    multi_gpu_efficiency: float = Field(default=DEFAULT_MULTI_GPU_EFFICIENCY, gt=0, le=1,
                                        description="per-card speed of a multi-GPU setup no benchmark measured")
    platform_cost_usd: float = Field(default=0.0, ge=0, description="the machine around the cards, once per setup")
    extra_gpu_cost_usd: float = Field(default=0.0, ge=0, description="what each card beyond the first adds to the machine")

    @field_validator("coverage_add", "coverage_remove", mode="before")
    @classmethod
    def _split_models(cls, v: object) -> object:
        if isinstance(v, str):
            text = v.strip()
            if text.startswith("["):
                import json

                return tuple(json.loads(text))
            return tuple(s.strip() for s in text.split(",") if s.strip())
        return v

    @property
    def data_dir(self) -> Path:
        return self.db.parent

    @property
    def raw_archive_dir(self) -> Path:
        return self.db.parent / "raw"

    @property
    def http_cache_dir(self) -> Path:
        return self.db.parent / "http-cache"


def settings_values(env_file: str | Path = ENV_FILE) -> dict[str, str]:
    """The GPUVALUE_* values as pydantic-settings finds them: the .env file's first, the environment's
    over them, names without the prefix and in lower case (names are not case-sensitive)."""
    values: dict[str, str] = {}
    path = Path(env_file)
    if path.is_file():
        from dotenv import dotenv_values

        values.update(_prefixed(dotenv_values(path)))
    values.update(_prefixed(os.environ))
    return values


def _prefixed(pairs) -> dict[str, str]:
    cut = len(ENV_PREFIX)
    return {k[cut:].lower(): v for k, v in pairs.items() if v is not None and k.upper().startswith(ENV_PREFIX)}


def reader_settings(model: type[BaseModel] = CoreFields, **given) -> BaseModel:
    """The shared settings (or ``model``'s, e.g. a source's own settings model) from the environment
    and .env, ``given`` over them (``db=`` from --db)."""
    return model.model_validate({**settings_values(), **given})
