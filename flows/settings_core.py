"""The shared settings' one definition: each field's type, bounds and meaning (``FIELDS``).

``CoreFields`` (flows/settings_model.py) is the pydantic model of these fields; ``Settings``
(flows/settings.py) adds the sources and each source's own settings on top of it and reads them with
pydantic-settings. A command that only reads takes the same fields from the same variables with
``read_plainly``, without pydantic: importing it cost a reading command more than its queries. A
value it does not read at a glance (out of bounds, not a plain number, a JSON list, a pattern's
value) is left to ``CoreFields`` instead (flows/cli/cli_app.py's ``reader_settings``), so what the reader
gets, and the error a bad value gives, are pydantic's (tests/flows/test_cli_startup.py compares them).
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from gpuvalue.models.builds import DEFAULT_POWER_LIMIT_W, DEFAULT_TWO_CARDS_USD, DEFAULT_WORKSTATION_USD
from gpuvalue.models.buyer_view import DEFAULT_MIN_MEMORY_GB
from gpuvalue.models.coverage import DEFAULT_COVERAGE_MIN_MEMORY_GB
from gpuvalue.models.multi_gpu import DEFAULT_MAX_GPUS, DEFAULT_MULTI_GPU_EFFICIENCY
from gpuvalue.models.ownership import DEFAULT_OWNERSHIP_MONTHS
from gpuvalue.models.price_age import DEFAULT_COMPARABLE_DAYS
from gpuvalue.scrapers.bounded import (
    DEFAULT_CACHE_MAX_AGE_H,
    DEFAULT_MAX_DECOMPRESSED_MB,
    DEFAULT_MAX_RESPONSE_MB,
    DEFAULT_REQUEST_DEADLINE_S,
)

ENV_PREFIX = "GPUVALUE_"
ENV_FILE = ".env"
SIZE_PATTERN = r"^\s*[0-9]+(\.[0-9]+)?\s*([KMGTkmgt]i?[Bb])\s*$"  # DuckDB's sizes: 1GB, 512MB, 1.5GiB


@dataclass(frozen=True)
class Setting:
    """One shared setting: its type (a class, a ``Literal``, ``str | None`` or ``tuple[str, ...]``),
    default, meaning and bounds. ``aliases``: the names it is read under instead of its own, the
    first one given winning; ``comma_list``: a plain comma list ("RTX A4000,Tesla P40") or a JSON list."""

    kind: Any
    default: Any
    description: str | None = None
    ge: float | None = None
    gt: float | None = None
    le: float | None = None
    lt: float | None = None
    pattern: str | None = None
    aliases: tuple[str, ...] = ()
    comma_list: bool = False


FIELDS: dict[str, Setting] = {
    "db": Setting(Path, Path("data/gpuvalue.duckdb"), "DuckDB database file"),
    "reference_gpu": Setting(str, "GeForce RTX 3090", "relative performance 1.0"),
    "precision": Setting(Literal["fp16", "fp32"], "fp16", "training precision ranked"),
    "price_window_days": Setting(int, 30, "trailing window for prices", ge=1, le=365),
    "price_min_count": Setting(int, 3, "listings needed for a price", ge=1),
    "price_comparable_days": Setting(
        int, DEFAULT_COMPARABLE_DAYS,
        "prices within this many days of the day's newest price rank first; older ones after them", ge=1, le=3650),
    "min_memory_gb": Setting(float, DEFAULT_MIN_MEMORY_GB,
                             "rank, recommend, report and feed show cards with at least this memory", ge=0),
    "coverage_min_memory_gb": Setting(float, DEFAULT_COVERAGE_MIN_MEMORY_GB,
                                      "the coverage rule's memory floor (the cards shopped for)", ge=0),
    "coverage_add": Setting(tuple[str, ...], (), "catalog models to shop for whatever the coverage rule says",
                            comma_list=True),
    "coverage_remove": Setting(tuple[str, ...], (), "catalog models never to shop for", comma_list=True),
    "read_wait_s": Setting(
        float, 10.0, "seconds a reading command (rank, sql, export, ...) waits for a running load before giving up",
        ge=0, le=3600),
    # A load waits for readers (a `gpuvalue sql` query, a duckdb CLI) this long before it gives up: above
    # the longest statement `gpuvalue sql` may run, so that no bounded reader can fail a day's load.
    "write_wait_s": Setting(float, 120.0, "seconds a load waits for readers that hold the database before it gives up",
                            ge=0, le=86400),
    "sql_timeout_s": Setting(float, 30.0, "seconds one `gpuvalue sql` statement may run", gt=0, le=3600),
    "sql_memory_limit": Setting(str, "1GB", "memory one `gpuvalue sql` query may use (DuckDB memory_limit)",
                                pattern=SIZE_PATTERN),
    "sql_temp_limit": Setting(str, "2GB", "disk one `gpuvalue sql` query may spill to (DuckDB max_temp_directory_size)",
                              pattern=SIZE_PATTERN),
    # Bytes a response or a decompressed page may hold: a page bigger than any real one is an error or
    # an attack (a gzip bomb expands a thousandfold), and reading it whole would exhaust memory.
    "max_response_mb": Setting(float, DEFAULT_MAX_RESPONSE_MB,
                               "MB of body a response (or a saved page) may have; a larger one is refused", gt=0, le=4096),
    "max_decompressed_mb": Setting(float, DEFAULT_MAX_DECOMPRESSED_MB,
                                   "MB a compressed page may expand to; a larger one is refused", gt=0, le=4096),
    # A request's headers and body together (robots.txt's too): a server trickling a byte at a time
    # never trips a per-read timeout, so each request has a deadline of its own.
    "request_deadline_s": Setting(float, DEFAULT_REQUEST_DEADLINE_S,
                                  "seconds one request (headers and body together) may take; a slower one fails "
                                  "its source", gt=0, le=3600),
    # The HTTP cache serves a page without asking for at most this long, whatever max-age the server gave.
    "http_cache_max_age_h": Setting(float, DEFAULT_CACHE_MAX_AGE_H,
                                    "hours a cached page may be served without asking the server again", ge=0,
                                    le=8760),
    "task_runner": Setting(Literal["thread", "dask"], "thread"),
    "dask_address": Setting(str | None, None),
    "schedule_cron": Setting(str, "0 6 * * *"),
    "schedule_timezone": Setting(str, "UTC"),
    "fail_on_quality_alarm": Setting(bool, False),
    # Rent or buy (models/rent_vs_buy.py): what the comparison assumes; every output states them.
    # One ownership horizon for resale, electricity and rent or buy: GPUVALUE_OWNERSHIP_MONTHS (its
    # former name GPUVALUE_HOLDING_MONTHS is still read).
    "holding_months": Setting(
        float, DEFAULT_OWNERSHIP_MONTHS, "months a bought card is owned: its resale, its electricity, rent or buy",
        gt=0, le=240,
        aliases=("holding_months", "ownership_months", "GPUVALUE_OWNERSHIP_MONTHS", "GPUVALUE_HOLDING_MONTHS")),
    "resale_fraction": Setting(float, 0.5, "its resale value then, share of the price paid", ge=0, lt=1),
    "kwh_price_usd": Setting(float, 0.15, "electricity, USD per kWh", ge=0, le=10),
    "hours_per_week": Setting(float, 10.0, "training hours a week", gt=0, le=168),
    # recommend's setups (models/budget_answers.py, models/multi_gpu.py): every answer states them.
    "max_gpus": Setting(int, DEFAULT_MAX_GPUS, "the most identical cards a recommended setup has (one for beginner and kaggle)",
                        ge=1, le=16),
    "multi_gpu_efficiency": Setting(float, DEFAULT_MULTI_GPU_EFFICIENCY,
                                    "per-card speed of a multi-GPU setup no benchmark measured", gt=0, le=1),
    "platform_cost_usd": Setting(float, 0.0, "your own machine cost a setup (0: the default machine by card count)", ge=0),
    "extra_gpu_cost_usd": Setting(float, 0.0, "with it, what each card beyond the first adds to the machine", ge=0),
    "platform_two_gpus_usd": Setting(float, DEFAULT_TWO_CARDS_USD,
                                     "the machine for two cards: a larger power supply and two x8 slots", ge=0),
    "platform_workstation_usd": Setting(float, DEFAULT_WORKSTATION_USD,
                                        "the machine for three or four cards: a workstation platform", ge=0),
    "power_limit_w": Setting(float, DEFAULT_POWER_LIMIT_W,
                             "the most a setup draws, cards and machine: one supply on one household circuit",
                             gt=0, le=20000),
}


def split_models(v: object) -> object:
    """A comma list of model names ("RTX A4000,Tesla P40"), or the JSON list form, as a tuple."""
    if isinstance(v, str):
        text = v.strip()
        if text.startswith("["):
            import json

            return tuple(json.loads(text))
        return tuple(s.strip() for s in text.split(",") if s.strip())
    return v


class Places:
    """Everything the pipeline writes lives beside the database."""

    db: Path

    @property
    def data_dir(self) -> Path:
        return self.db.parent

    @property
    def raw_archive_dir(self) -> Path:
        return self.db.parent / "raw"

    @property
    def http_cache_dir(self) -> Path:
        return self.db.parent / "http-cache"


class ReaderSettings(Places):
    """The shared settings as a reading command holds them: each field an attribute."""

    def __init__(self, values: Mapping[str, Any]) -> None:
        self.__dict__.update(values)

    def __repr__(self) -> str:
        return f"ReaderSettings({', '.join(f'{k}={v!r}' for k, v in self.__dict__.items())})"


# A settings file holds a few lines; the .env reader's time grows with a line's length (a 50 MB value
# once held a run for minutes before anything was said), so a larger file is refused before it is read.
MAX_ENV_FILE_BYTES = 1024 * 1024


def check_env_file(env_file: str | Path | None = ENV_FILE) -> None:
    """ValueError, in one line, for a .env file larger than any settings file (MAX_ENV_FILE_BYTES)."""
    if env_file is None:
        return
    path = Path(env_file)
    try:
        size = path.stat().st_size if path.is_file() else 0
    except OSError:
        return
    if size > MAX_ENV_FILE_BYTES:
        raise ValueError(f"{path.name} is {size / (1024 * 1024):.1f} MB; a settings file holds a few lines "
                         f"(at most {MAX_ENV_FILE_BYTES // (1024 * 1024)} MB): not read")


def settings_values(env_file: str | Path = ENV_FILE) -> dict[str, str]:
    """The GPUVALUE_* values as pydantic-settings finds them: the .env file's first, the environment's
    over them, names without the prefix and in lower case (names are not case-sensitive)."""
    values: dict[str, str] = {}
    path = Path(env_file)
    check_env_file(path)
    if path.is_file():
        from dotenv import dotenv_values

        values.update(_prefixed(dotenv_values(path)))
    values.update(_prefixed(os.environ))
    return values


def _prefixed(pairs) -> dict[str, str]:
    cut = len(ENV_PREFIX)
    return {k[cut:].lower(): v for k, v in pairs.items() if v is not None and k.upper().startswith(ENV_PREFIX)}


_WHOLE = re.compile(r"-?[0-9]{1,18}")
_DECIMAL = re.compile(r"-?[0-9]{1,15}(?:\.[0-9]{1,15})?")
_TRUE, _FALSE = frozenset({"1", "on", "t", "true", "y", "yes"}), frozenset({"0", "off", "f", "false", "n", "no"})
_UNREAD = object()


def read_plainly(values: Mapping[str, Any]) -> dict[str, Any] | None:
    """Every field from ``values`` as ``CoreFields`` reads it, or None where some value is one to
    leave to it. Other names are ignored, as ``CoreFields`` ignores them."""
    read: dict[str, Any] = {}
    for name, setting in FIELDS.items():
        given = [key for key in (setting.aliases or (name,)) if key in values]
        if not given:
            read[name] = setting.default
            continue
        if len(given) > 1:
            return None
        value = _plain_value(setting, values[given[0]])
        if value is _UNREAD:
            return None
        read[name] = value
    return read


def _plain_value(setting: Setting, v: Any) -> Any:
    kind = setting.kind
    if setting.pattern is not None:
        return _UNREAD
    if setting.comma_list:
        if type(v) is str and not v.strip().startswith("["):
            return split_models(v)
        return _UNREAD
    if get_origin(kind) is Literal:
        return v if type(v) is str and v in get_args(kind) else _UNREAD
    if kind is str or kind == str | None:
        return v if type(v) is str else _UNREAD
    if kind is Path:
        if isinstance(v, Path):
            return v
        return Path(v) if type(v) is str and v and "\x00" not in v else _UNREAD
    if kind is bool:
        if type(v) is bool:
            return v
        if type(v) is str and v.isascii():
            return True if v.lower() in _TRUE else False if v.lower() in _FALSE else _UNREAD
        return _UNREAD
    if kind is int:
        number: Any = v if type(v) is int else int(v) if type(v) is str and _WHOLE.fullmatch(v) else _UNREAD
    elif kind is float:
        if type(v) is float:
            number = v if math.isfinite(v) else _UNREAD
        elif type(v) is int:
            number = float(v)
        else:
            number = float(v) if type(v) is str and _DECIMAL.fullmatch(v) else _UNREAD
    else:
        return _UNREAD
    if number is _UNREAD or not _within(setting, number):
        return _UNREAD
    return number


def _within(setting: Setting, number: float) -> bool:
    return ((setting.ge is None or number >= setting.ge) and (setting.gt is None or number > setting.gt)
            and (setting.le is None or number <= setting.le) and (setting.lt is None or number < setting.lt))
