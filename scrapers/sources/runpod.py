"""RunPod's own price list: its public GraphQL ``gpuTypes``, per GPU type, without a key.

RunPod rents each GPU type in two clouds: **secure** (RunPod's partner datacenters) and
**community** (vetted individual hosts), each on demand and as spot (interruptible) instances, all
priced per GPU-hour. SkyPilot's RunPod catalog is years old in places; this is RunPod's answer itself.

One offer per GPU type and cloud the type is offered in (``secureCloud`` / ``communityCloud``):
a price of a cloud the type is not offered in is a placeholder (the recorded answer lists the B200 at
$0.50 in a community cloud that does not carry it), and so is a price of 0, so both are left out.
The enrich stage's matcher reads RunPod's full name (``id``: ``NVIDIA H100 80GB HBM3``) with its
memory, and the instance type made of its short name (``displayName``: ``H100 SXM (secure cloud)``),
which states the form factor where the full name does not.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import RentalOffer
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "runpod"
PROVIDER = "runpod"

QUERY = ("query GpuTypes { gpuTypes { id displayName memoryInGb maxGpuCount secureCloud communityCloud "
         "securePrice communityPrice secureSpotPrice communitySpotPrice } }")
# GraphQL over GET (the query in the URL): one URL per answer, which the HTTP cache and replay key on.
GRAPHQL_URL = "https://api.runpod.io/graphql?query=" + quote(QUERY, safe="")

FIXTURE = "cloud/runpod/runpod_graphql_gputypes_2025-06-21_jumbo2020.json"
FIXTURE_DATE = date(2025, 6, 21)
FIXTURE_PROVENANCE = ("Jumbo2020/gpu_prices@13a47f941739e39094139e8c4f7a5bff94bc0fbd:gpu_prices.json "
                      "(2025-06-21T23:18Z; RunPod's gpuTypes answer, wrapped here in GraphQL's {\"data\": ...})")

# cloud -> (the flag saying the type is offered there, on-demand price field, spot price field)
CLOUDS = {
    "secure": ("secureCloud", "securePrice", "secureSpotPrice"),
    "community": ("communityCloud", "communityPrice", "communitySpotPrice"),
}


def _price(gpu: dict[str, Any], key: str, url: str, i: int) -> float | None:
    value = gpu.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParseError(NAME, url, f"gpu type {i}: {key} {value!r} is not a number")
    return float(value) if value > 0 else None  # 0: not offered


def _gpu_types(body: bytes, url: str) -> list[Any]:
    try:
        data = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ParseError(NAME, url, "not JSON") from None
    if isinstance(data, dict):
        if data.get("errors") and not data.get("data"):
            raise ParseError(NAME, url, f"GraphQL error: {str(data['errors'])[:200]}")
        inner = data.get("data", data)
        if not isinstance(inner, dict) or "gpuTypes" not in inner:
            raise ParseError(NAME, url, "no gpuTypes in the answer")
        data = inner["gpuTypes"]
    if not isinstance(data, list):
        raise ParseError(NAME, url, "gpuTypes is not a list")
    return data


def parse_runpod_gpu_types(body: bytes, url: str, as_of: date) -> list[RentalOffer]:
    """One offer per GPU type and cloud it is offered in, in answer order. Raises only ParseError."""
    offers: list[RentalOffer] = []
    for i, gpu in enumerate(_gpu_types(body, url)):
        if not isinstance(gpu, dict):
            raise ParseError(NAME, url, f"gpu type {i} is not an object")
        gpu_id = gpu.get("id")
        if not isinstance(gpu_id, str) or not gpu_id.strip():
            raise ParseError(NAME, url, f"gpu type {i}: no id")
        if gpu_id.strip().casefold() == "unknown":
            continue  # RunPod's placeholder type, priced 0 everywhere
        display = gpu.get("displayName") if isinstance(gpu.get("displayName"), str) else None
        memory_value = gpu.get("memoryInGb")
        memory = float(memory_value) if isinstance(memory_value, (int, float)) and not isinstance(memory_value, bool) \
            and math.isfinite(memory_value) and memory_value > 0 else None
        for cloud, (flag, price_key, spot_key) in CLOUDS.items():
            if gpu.get(flag) is not True:
                continue
            price, spot = _price(gpu, price_key, url, i), _price(gpu, spot_key, url, i)
            if price is None and spot is None:
                continue
            try:
                offers.append(RentalOffer(
                    source=NAME, provider=PROVIDER, instance_type=f"{display or gpu_id} ({cloud} cloud)",
                    gpu_name=gpu_id.strip(), gpu_count=1,
                    usd_per_hour=price, usd_per_gpu_hour=price, spot_usd_per_hour=spot, spot_usd_per_gpu_hour=spot,
                    region=f"{cloud} cloud", gpu_memory_gb=memory, as_of=as_of,
                ))
            except ValueError as exc:
                raise ParseError(NAME, url, f"gpu type {i}: {exc}") from None
    return offers


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    ctx.report(f"{NAME}: gpuTypes")
    page = get_page(ctx, out, GRAPHQL_URL)
    if page is not None:
        out.pages.append(page)
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "rental", records=parse_runpod_gpu_types(page.body, page.url, page.fetched_at.date()))


def _replay(fixtures: Path) -> Iterator[Recording]:
    gpu_types = json.loads((fixtures / FIXTURE).read_bytes())
    body = json.dumps({"data": {"gpuTypes": gpu_types}}, separators=(",", ":")).encode()
    yield Recording(page_from_file(NAME, body, GRAPHQL_URL, at_midnight_utc(FIXTURE_DATE), "application/json"),
                    provenance=FIXTURE_PROVENANCE)


SOURCE = Source(
    name=NAME,
    kind="rental",
    attribution="GPU rental prices from RunPod's public GraphQL API (gpuTypes: secure and community cloud, on demand and spot)",
    licence="prices are facts published by RunPod",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    label="RunPod",
    sample_url=GRAPHQL_URL,
    fixtures=(FIXTURE,),
    hosts=("runpod.io",),
)
