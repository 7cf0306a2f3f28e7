"""SkyPilot's VM catalogs: what a GPU instance costs per hour at vast, Lambda and RunPod, as SkyPilot publishes it.

SkyPilot keeps one CSV per cloud in ``skypilot-org/skypilot-catalog`` and refreshes them from the
providers' APIs; reading them gives today's on-demand (and, where there is one, spot) prices without
a client per provider. The three files cover a marketplace (vast, prices move with supply), a fixed
price list (Lambda) and RunPod.

The files differ in column order and in schema version (v8 for vast and Lambda, v6 for RunPod), so the
parser is driven by the header: a file whose header lacks a required column is refused, naming the
column, rather than read out of place. ``GpuInfo`` is a Python dict literal, read with
``ast.literal_eval`` (never ``eval``); RunPod writes a bare name there instead. Rows without an
accelerator (CPU instances) are skipped.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

from gpuvalue.models.cloud_names import NameReading
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import RentalOffer
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.csv_table import CsvRow, read_csv_table
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, page_from_file

NAME = "skypilot-catalog"

_REPO = "skypilot-org/skypilot-catalog"
# The repository's default branch is master (SkyPilot's own HOSTED_CATALOG_DIR_URL reads it).
_RAW = f"https://raw.githubusercontent.com/{_REPO}/master/"

REQUIRED_COLUMNS = ("InstanceType", "AcceleratorName", "AcceleratorCount", "Price", "SpotPrice")
OPTIONAL_COLUMNS = ("vCPUs", "MemoryGiB", "GpuInfo", "Region")


class CatalogFile:
    """One catalog file: where it lives upstream, and the saved copy replay serves for it."""

    def __init__(self, path: str, fixture: str, as_of: date, blob: str, dated_by: str) -> None:
        self.path = path
        self.url = _RAW + path
        self.fixture = fixture
        self.as_of = as_of
        self.blob = blob
        self.dated_by = dated_by


# The saved copies' commit dates are unknown, so each is dated by the newest GPU it lists: the
# earliest day its content can be from, so a replay never presents these prices as newer than that.
CATALOG_FILES = (
    CatalogFile("catalogs/v8/vast/vms.csv", "cloud/skypilot-catalog/v8_vast_vms.csv", date(2025, 3, 18),
                "01b8cdda287814b30ff0acb49746cca19fbd4355", "RTX PRO 6000 Blackwell announced"),
    CatalogFile("catalogs/v8/lambda/vms.csv", "cloud/skypilot-catalog/v8_lambda_vms.csv", date(2024, 3, 18),
                "0f4070387edc953d7004cff197940e1918a1d6aa", "B200 announced"),
    CatalogFile("catalogs/v6/runpod/vms.csv", "cloud/skypilot-catalog/v6_runpod_vms.csv", date(2023, 8, 9),
                "098741e70562f65d7af1cceb81e33b284f742604", "RTX 4000 Ada Generation released"),
)

# How each provider's GpuInfo states memory. SkyPilot's documented format gives one GPU's memory in
# MemoryInfo.SizeInMiB (Lambda follows it); its vast fetcher writes the instance's total
# (gpu_total_ram) there instead (skypilot-org/skypilot, sky/catalog/data_fetchers/fetch_vast.py).
_MEMORY_IS_TOTAL = {"vast": True}


# SkyPilot's own GPU names, read before the shared matcher (``read_gpu_name``):
#
# - its vast catalog writes vast's own GPU name into the instance type
#   ("{gpus}x-{name with _ for spaces}-{cpus}-{ram}") and a shortened one into AcceleratorName, which
#   drops Ti, SXM4, PCIE, NVL and the S/D of a GeForce (skypilot-org/skypilot,
#   sky/catalog/data_fetchers/fetch_vast.py): the instance type is the name to read;
# - its RunPod names are its own short ones (skypilot-org/skypilot, sky/provision/runpod/utils.py,
#   GPU_NAME_MAP): 'A100-80GB' -> 'NVIDIA A100 80GB PCIe', 'H100' -> 'NVIDIA H100 PCIe' (80 GB in
#   RunPod's GPU types list), 'H100-SXM' -> 'NVIDIA H100 80GB HBM3', 'RTXPRO6000' -> 'NVIDIA RTX PRO
#   6000 Blackwell Server Edition', 'RTXPRO6000-WK' -> '... Workstation Edition'.
_VAST_INSTANCE = re.compile(r"^\d+x-(.+)-\d+-\d+$")
RUNPOD_NAMES = {
    "A100-80GB": "A100 PCIe 80GB",
    "H100": "H100 PCIe 80GB",
    "H100-SXM": "H100 SXM 80GB",
    "RTXPRO6000": "RTX PRO 6000 Server",
    "RTXPRO6000-WK": "RTX PRO 6000 Workstation",
}


def read_gpu_name(provider: str, gpu_name: str, instance_type: str | None) -> NameReading | None:
    """How the matcher reads one of SkyPilot's GPU names (see above), or None: as published."""
    provider = provider.strip().casefold()
    if provider == "vast" and instance_type:
        vast_name = _VAST_INSTANCE.match(instance_type.strip())
        if vast_name:
            name = vast_name.group(1).replace("_", " ")
            return NameReading(name, f"vast name {name!r} from the instance type")
    published = " ".join(gpu_name.split())
    fact = RUNPOD_NAMES.get(published) if provider == "runpod" else None
    if fact is not None:
        return NameReading(fact, f"provider fact: {provider} {published} is {fact}")
    return None


_SAVED_NAME = re.compile(r"^(?:v\d+_)?([a-z0-9][a-z0-9-]*)_vms\.csv$", re.IGNORECASE)


def provider_from_url(url: str) -> str:
    """The provider a catalog file is about: the folder above ``vms.csv`` (``catalogs/v8/vast/vms.csv``),
    or, for a saved copy, the file name (``v8_vast_vms.csv``, ``vast_vms.csv``)."""
    parts = [p for p in url.split("?")[0].split("#")[0].split("/") if p]
    if len(parts) >= 2 and parts[-1] == "vms.csv":
        return parts[-2].casefold()
    saved = _SAVED_NAME.match(parts[-1]) if parts else None
    if saved:
        return saved.group(1).casefold()
    raise ParseError(NAME, url, "cannot tell the provider: expected …/<provider>/vms.csv or <version>_<provider>_vms.csv")


def _float(row: CsvRow, name: str) -> float | None:
    return row.number(name) if row.cell(name) else None


def _gpu_info(row: CsvRow) -> dict[str, Any] | None:
    """The GpuInfo dict, or None when the cell is blank or a bare name (RunPod)."""
    text = row.cell("GpuInfo")
    if not text.startswith("{"):
        return None
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise row.error("GpuInfo is not a Python literal") from None
    if not isinstance(value, dict):
        raise row.error("GpuInfo is not a dict")
    return value


def _gpu_memory_gb(info: dict[str, Any] | None, provider: str, count: int) -> float | None:
    """Memory per GPU in GiB (the catalog's MiB / 1024), or None when the file does not say."""
    if info is None:
        return None
    gpus = info.get("Gpus")
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        return None
    memory_info = gpus[0].get("MemoryInfo")
    mib = memory_info.get("SizeInMiB") if isinstance(memory_info, dict) else None
    if not isinstance(mib, (int, float)) or isinstance(mib, bool) or mib <= 0:
        return None
    if _MEMORY_IS_TOTAL.get(provider, False):
        mib = mib / count
    return round(mib / 1024, 1)


def parse_skypilot_catalog(body: bytes, url: str, as_of: date) -> list[RentalOffer]:
    """One offer per GPU row of a catalog file, in file order. Raises only ParseError."""
    provider = provider_from_url(url)
    # A header lacking a column refuses the file before its rows are read.
    table = read_csv_table(body, source=NAME, url=url, required=REQUIRED_COLUMNS, optional=OPTIONAL_COLUMNS,
                           header_first=True)
    offers: list[RentalOffer] = []
    for row in table:
        cell = row.cell
        gpu_name = cell("AcceleratorName")
        if not gpu_name:
            continue  # a CPU instance
        count_value = _float(row, "AcceleratorCount")
        if count_value is None or count_value < 1 or count_value != int(count_value):
            raise row.error(f"AcceleratorCount {cell('AcceleratorCount')!r} is not a GPU count")
        count = int(count_value)
        price = _float(row, "Price")
        spot = _float(row, "SpotPrice")
        if spot is not None and spot == 0:
            spot = None  # vast writes 0.00 for "no spot price"
        if price is None and spot is None:
            raise row.error("neither Price nor SpotPrice")
        instance_type = cell("InstanceType") or None
        memory = _gpu_memory_gb(_gpu_info(row), provider, count)
        try:
            offers.append(
                RentalOffer(
                    source=NAME,
                    provider=provider,
                    instance_type=instance_type,
                    gpu_name=gpu_name,
                    gpu_count=count,
                    usd_per_hour=price,
                    usd_per_gpu_hour=None if price is None else round(price / count, 6),
                    spot_usd_per_hour=spot,
                    spot_usd_per_gpu_hour=None if spot is None else round(spot / count, 6),
                    region=cell("Region") or None,
                    vcpus=_float(row, "vCPUs"),
                    memory_gib=_float(row, "MemoryGiB"),
                    gpu_memory_gb=memory,
                    as_of=as_of,
                )
            )
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise row.error(str(exc)) from None
    return offers


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    for f in CATALOG_FILES:
        ctx.report(f"{NAME}: {f.path}")
        out.pages.append(ctx.client.get(f.url, source=NAME))
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "rental", records=parse_skypilot_catalog(page.body, page.url, page.fetched_at.date()))


def _replay(fixtures: Path) -> Iterator[Recording]:
    for f in CATALOG_FILES:
        body = (fixtures / f.fixture).read_bytes()
        yield Recording(
            page_from_file(NAME, body, f.url, at_midnight_utc(f.as_of), "text/csv"),
            provenance=f"{_REPO}@blob {f.blob}:{f.path} (commit date unknown; dated {f.as_of}: {f.dated_by})",
        )


SOURCE = Source(
    name=NAME,
    kind="rental",
    attribution="GPU instance prices from SkyPilot's VM catalogs (skypilot-org/skypilot-catalog)",
    licence="no licence file in the repository; prices are facts published by the providers",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    gpu_names=read_gpu_name,
    fixtures=tuple(f.fixture for f in CATALOG_FILES),
)
