"""vast.ai's offer search: every rentable machine on the marketplace, offer by offer, without a key.

vast.ai is a marketplace: each offer is one host's machine (or a share of its GPUs) at the host's
price, with the host's measured reliability and whether vast verified it. SkyPilot's vast catalog
groups those offers into configurations; this source keeps each offer, so a renter can ask for
reliable, verified hosts only (``gpuvalue rent --min-reliability 0.99 --verified``).

What an offer states, as vast's public search (``/api/v0/bundles/``) answers it:

- ``dph_total``: dollars per hour for the **whole offer** (all ``num_gpus`` GPUs, with the default
  disk), so the price per GPU-hour is ``dph_total / num_gpus``;
- ``min_bid``: the lowest bid an interruptible instance of the whole offer runs at; the disk is paid
  on top of a bid as on demand (``dph_total - dph_base``), so the interruptible price per GPU-hour is
  ``(min_bid + dph_total - dph_base) / num_gpus``, and none where that is not below the on-demand
  price (a quarter of the recorded offers: other renters' bids have driven the minimum up, and an
  interruptible instance that costs more than an uninterruptible one is no offer);
- ``reliability2`` (``reliability`` in older answers), a fraction; ``verification`` (``verified``,
  ``unverified`` or ``deverified``);
- ``gpu_name`` in vast's own words (``RTX 4070S Ti``, ``Q RTX 6000``, ``RTX 6000Ada``), ``gpu_ram``
  in MiB per GPU;
- ``dlperf``: vast's own "deep learning performance" score for the whole offer, a formula over its
  specs. It travels in the offer's ``extras`` (``dlperf``), and ``SCORE`` declares it, so that
  ``gpuvalue rent`` shows it beside gpuvalue's figure for the card ("vast score", ``vast_dlperf`` in
  its JSON rows), never used as a measurement.

The answer is ``{"offers": [...]}``; the output of ``vastai search offers --raw`` (the bare list, as
the recorded fixture is) is read too. An offer that is not rentable, or already rented, is skipped.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any
from urllib.parse import quote

from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import ProviderScore, RentalOffer
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "vastai"
PROVIDER = "vast"
# vast.ai's own score of an offer, as `gpuvalue rent` shows it per card (its JSON names are public since v21).
SCORE = ProviderScore(provider=PROVIDER, extra="dlperf", field="vast_dlperf", header="vast score",
                      meaning="vast.ai's own DLPerf per GPU for the card", caveat="a formula over the machine's specs")

# Every rentable offer, verified or not (the user's filters choose), on-demand prices, cheapest first.
# The search caps an answer; 5,000 is above the ~1,400 to ~4,000 offers the marketplace lists.
QUERY = {"rentable": {"eq": True}, "rented": {"eq": False}, "type": "on-demand",
         "order": [["dph_total", "asc"]], "limit": 5000}
SEARCH_URL = ("https://console.vast.ai/api/v0/bundles/?q="
              + quote(json.dumps(QUERY, separators=(",", ":"), sort_keys=True), safe=""))

FIXTURE = "cloud/vastai/vastai_search_offers_raw_2024-11-05_vast-python.json.gz"
FIXTURE_DATE = date(2024, 11, 5)  # the newest offer's start_date, 2024-11-05T15:15Z
FIXTURE_PROVENANCE = ("vast-ai/vast-python@11ecdfa9faed4bd8954e0fee092fb4ff39640d69:search.json "
                      "(2024-11-05; the output of `vastai search offers --raw`, wrapped here in the "
                      "API's {\"offers\": [...]} answer)")

_REQUIRED = ("id", "gpu_name", "num_gpus", "dph_total")


def _number(offer: dict[str, Any], key: str, url: str, i: int) -> float | None:
    value = offer.get(key)
    if value is None or value == "":
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParseError(NAME, url, f"offer {i}: {key} {value!r} is not a number")
    return float(value)


def _offers_list(body: bytes, url: str) -> list[Any]:
    try:
        data = json.loads(body.decode("utf-8-sig"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise ParseError(NAME, url, "not JSON") from None
    if isinstance(data, dict):
        if "offers" not in data:
            raise ParseError(NAME, url, f"no 'offers' in the answer (keys: {', '.join(map(str, list(data)[:8]))})")
        data = data["offers"]
    if not isinstance(data, list):
        raise ParseError(NAME, url, "the offers are not a list")
    return data


def parse_vastai_offers(body: bytes, url: str, as_of: date) -> list[RentalOffer]:
    """One offer per rentable vast.ai offer, in answer order. Raises only ParseError."""
    offers: list[RentalOffer] = []
    for i, offer in enumerate(_offers_list(body, url)):
        if not isinstance(offer, dict):
            raise ParseError(NAME, url, f"offer {i} is not an object")
        missing = [k for k in _REQUIRED if offer.get(k) in (None, "")]
        if missing:
            raise ParseError(NAME, url, f"offer {i}: no {', '.join(missing)}")
        if offer.get("rentable") is False or offer.get("rented") is True:
            continue
        gpu_name = offer["gpu_name"]
        if not isinstance(gpu_name, str) or not gpu_name.strip():
            raise ParseError(NAME, url, f"offer {i}: gpu_name {gpu_name!r} is not a name")
        count_value = _number(offer, "num_gpus", url, i)
        if count_value is None or count_value < 1 or count_value != int(count_value):
            raise ParseError(NAME, url, f"offer {i}: num_gpus {offer.get('num_gpus')!r} is not a GPU count")
        count = int(count_value)
        total = _number(offer, "dph_total", url, i)
        base = _number(offer, "dph_base", url, i)
        bid = _number(offer, "min_bid", url, i)
        disk = max(total - base, 0.0) if total is not None and base is not None else 0.0
        spot = bid + disk if bid is not None and bid > 0 else None
        if spot is not None and total is not None and spot >= total - 1e-6:  # to the rounding of the prices
            spot = None  # bids have driven it to the on-demand price or above: no interruptible bargain
        mib = _number(offer, "gpu_ram", url, i)
        memory = round(mib / 1024, 1) if mib is not None and mib > 0 else None
        reliability = _number(offer, "reliability2", url, i)
        if reliability is None:
            reliability = _number(offer, "reliability", url, i)
        if reliability is not None and not 0 <= reliability <= 1:
            raise ParseError(NAME, url, f"offer {i}: reliability {reliability!r} is not a fraction")
        verification = offer.get("verification")
        verified = None if not isinstance(verification, str) else verification.strip().casefold() == "verified"
        score = _number(offer, "dlperf", url, i)
        try:
            offers.append(RentalOffer(
                source=NAME, provider=PROVIDER,
                instance_type=f"{count}x {gpu_name.strip()} (offer {offer['id']})",
                gpu_name=gpu_name.strip(), gpu_count=count,
                usd_per_hour=total, usd_per_gpu_hour=None if total is None else round(total / count, 6),
                spot_usd_per_hour=None if spot is None else round(spot, 6),
                spot_usd_per_gpu_hour=None if spot is None else round(spot / count, 6),
                region=(offer.get("geolocation") or None) if isinstance(offer.get("geolocation"), str) else None,
                vcpus=_number(offer, "cpu_cores_effective", url, i),
                memory_gib=None if (ram := _number(offer, "cpu_ram", url, i)) is None else round(ram / 1024, 1),
                gpu_memory_gb=memory, as_of=as_of, reliability=reliability, verified=verified,
                extras={} if score is None or score <= 0 else {SCORE.extra: round(score, 3)},
            ))
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise ParseError(NAME, url, f"offer {i}: {exc}") from None
    return offers


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    ctx.report(f"{NAME}: the offer search")
    page = get_page(ctx, out, SEARCH_URL)
    if page is not None:
        out.pages.append(page)
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "rental", records=parse_vastai_offers(page.body, page.url, page.fetched_at.date()))


def _replay(fixtures: Path) -> Iterator[Recording]:
    offers = json.loads(gzip.decompress((fixtures / FIXTURE).read_bytes()))
    body = json.dumps({"offers": offers}, separators=(",", ":")).encode()
    yield Recording(page_from_file(NAME, body, SEARCH_URL, at_midnight_utc(FIXTURE_DATE), "application/json"),
                    provenance=FIXTURE_PROVENANCE)


SOURCE = Source(
    name=NAME,
    kind="rental",
    attribution="GPU rental offers from vast.ai's public offer search (console.vast.ai); DLPerf is vast.ai's own score",
    licence="prices and host figures are facts published by vast.ai and its hosts",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    label="vast.ai",
    sample_url=SEARCH_URL,
    fixtures=(FIXTURE,),
    hosts=("vast.ai",),
    provider_score=SCORE,
)
