"""Full Stack Deep Learning's serverless GPU table: what an hour of GPU time costs on serverless platforms.

FSDL keeps ``docs/cloud-gpus/serverless-gpus.csv`` in ``the-full-stack/website`` beside its cloud
table, by hand: one row per platform (Banana, Baseten, Beam, Covalent, Modal, OVHcloud, Replicate,
RunPod, Inferless, Mystic AI) and GPU configuration, with ``Per-Hour`` (all the configuration's
GPUs) and ``Per-GPU`` in US dollars.

**Is a serverless price a rental offer?** It is a real price of GPU time: the platform bills each
second a job runs, at this rate per hour, so a job of N GPU-hours costs N times ``Per-GPU``. It is not
an instance: nothing runs between jobs (and nothing is paid), a job starts cold, and most platforms cap
how long one call may run and are built for inference. A training job that fits those terms (a
fine-tuning run, a job split into calls) rents at this price; one that needs a machine for days does
not. So the source is opt-in (``GPUVALUE_SOURCES=...,fsdl-serverless-gpus``), and every offer says
what it is where a reader sees it: the provider is the platform's name with ``-serverless``
(``modal-serverless``, ``runpod-serverless``: RunPod's serverless GPUs never mix with its pods'
prices under ``runpod``), and the instance type starts "serverless". There is no spot price.

**Dates.** The table was last changed on 2024-05-20 (``f6e21a2``; the recorded version, at snapshot
commit ``2bddc6d``); its prices are of that day, not of the day they are read. So a fetch asks GitHub's
commits API which commit last changed the file (``scrapers/github_commits.py``) and reads the file at
the raw URL pinned to that commit, dated by it. Without that answer it reads the ``main`` branch file:
the known version is dated by its own date (``KNOWN_VERSIONS``, by the body's SHA-256), and a version
of unknown date by the newest known one (its prices are at least that old), said in a warning; never
by the day it was read. The replay records the answer (written from the repository's history) and
the file under its pinned URL, so a replay reads it as a live run does.

The file shows its hand editing: ``$`` before some prices (``$0.4``), a unit in some ``GPU RAM`` cells
(``16GB``), ``0`` for vCPUs and RAM a platform does not state, ``GPU RAM`` per GPU on some multi-GPU
rows and for all of them on others (memory per GPU is read from the name's parentheses first, as in
the cloud table), and a ``Per-GPU`` rounded apart from ``Per-Hour`` / GPUs (``0.63`` and ``0.64``).
The whole-configuration price divided by its GPUs is the price per GPU-hour, as for FSDL's cloud
table; a ``Per-GPU`` farther from it than rounding is said in a warning.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from gpuvalue.models.cloud_names import memory_from_name
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import RentalOffer
from gpuvalue.models.source_batches import SourceFetch
from gpuvalue.scrapers.csv_table import CsvRow, lines_said, read_csv_table
from gpuvalue.scrapers.github_commits import (
    LastCommit,
    TableDate,
    dated_table_parsers,
    fetch_last_commit,
    last_commit_url,
    raw_url,
    table_date,
)
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "fsdl-serverless-gpus"

_REPO = "the-full-stack/website"
_PATH = "docs/cloud-gpus/serverless-gpus.csv"
LIVE_URL = raw_url(_REPO, "main", _PATH)
COMMITS_URL = last_commit_url(_REPO, _PATH)  # which commit last changed the file: its date is the table's

REQUIRED_COLUMNS = ("Vendor", "GPU Type", "GPUs", "Per-Hour", "Per-GPU")
OPTIONAL_COLUMNS = ("GPU Arch", "GPU RAM", "vCPUs", "RAM")

FIXTURE = "cloud/fsdl_serverless-gpus/serverless-gpus_HEAD.csv"
FIXTURE_DATE = date(2024, 5, 20)  # the table's last change before the snapshot it was saved at
FIXTURE_COMMIT = "f6e21a2086cbc8b31851e071a79908767b9d3c19"  # that change (merge of pull request #103)
# The commits API's answer at the snapshot, naming FIXTURE_COMMIT (written from the repository's history).
COMMITS_FIXTURE = "cloud/fsdl_serverless-gpus/commits_serverless-gpus.json"
_SNAPSHOT = "2bddc6d52544dc258e7e34396c6958377f72816b"
# Versions of the file whose date is known, by the SHA-256 of their bytes: a fetch of one is dated by it.
KNOWN_VERSIONS = {"336810572064abc0b49ea50913263c4bd13dc386f5230fcacf1afd99fba190ba": FIXTURE_DATE}

# Per-GPU and Per-Hour / GPUs differ a little by rounding; beyond this they say different things.
_PER_GPU_TOLERANCE = 0.02
_RANGE = re.compile(r"^\[?\s*\d+(?:\.\d+)?\s*-\s*\d+(?:\.\d+)?\s*\]?$")
_QUANTITY = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:GB|GiB)?$", re.IGNORECASE)


def pinned_url(commit: str) -> str:
    """The raw URL of the file as it was at ``commit``."""
    return raw_url(_REPO, commit, _PATH)


def provider_slug(vendor: str) -> str:
    """The platform's name, lower-cased with hyphens, marked serverless: ``Mystic AI`` -> ``mystic-ai-serverless``."""
    return "-".join([*vendor.casefold().split(), "serverless"])


def _quantity(row: CsvRow, name: str) -> float | None:
    """A count or size ("16", "59.5", "16GB"); None when blank, 0 (the platform does not say) or a range
    (``1-4``, which names no one offer)."""
    text = row.cell(name).replace(",", "")
    if not text or _RANGE.match(text):
        return None
    found = _QUANTITY.match(text)
    if found is None:
        raise row.not_a_number(name)
    return row.number(name, found.group(1)) or None


def _instance_type(count: int, gpu_name: str, memory: float | None, vcpus: float | None, ram: float | None) -> str:
    """``serverless 2x A10G (24 GB), 24 vCPUs, 96 GB RAM``: what the row configures, the memory where the
    name does not state it (two of Mystic AI's rows differ by it alone)."""
    gpu = gpu_name if memory is None or memory_from_name(gpu_name) is not None else f"{gpu_name} ({memory:g} GB)"
    parts = [f"serverless {count}x {gpu}", f"{vcpus:g} vCPUs" if vcpus else "", f"{ram:g} GB RAM" if ram else ""]
    return ", ".join(part for part in parts if part)


def read_serverless_gpus(body: bytes, url: str, as_of: date) -> tuple[list[RentalOffer], list[str]]:
    """One offer per priced row of ``serverless-gpus.csv``, in file order, and warnings for the rows
    skipped or doubted. Raises only ParseError."""
    table = read_csv_table(body, source=NAME, url=url, required=REQUIRED_COLUMNS, optional=OPTIONAL_COLUMNS)
    offers: list[RentalOffer] = []
    warnings: list[str] = []
    disagreeing: list[int] = []
    for row in table:
        line, cell = row.line, row.cell
        vendor, gpu_name = cell("Vendor"), " ".join(cell("GPU Type").split())
        if not vendor or not gpu_name:
            raise row.error(f"no {'Vendor' if not vendor else 'GPU Type'}")
        gpus = _quantity(row, "GPUs")
        if gpus is None or gpus < 1 or gpus != int(gpus):
            warnings.append(f"{url} line {line}: {vendor} {gpu_name}: GPU count {cell('GPUs')!r} names no one offer, skipped")
            continue
        count = int(gpus)
        per_hour = row.usd("Per-Hour")
        per_gpu = row.usd("Per-GPU")
        if per_hour is None and per_gpu is None:
            warnings.append(f"{url} line {line}: {vendor} {gpu_name}: no price, skipped")
            continue
        usd_per_gpu_hour = per_gpu
        if per_hour is not None:
            usd_per_gpu_hour = round(per_hour / count, 6)
            if per_gpu is not None and abs(usd_per_gpu_hour - per_gpu) > _PER_GPU_TOLERANCE * max(per_gpu, usd_per_gpu_hour):
                disagreeing.append(line)
        gpu_ram = _quantity(row, "GPU RAM")
        memory = memory_from_name(gpu_name)
        if memory is None and gpu_ram is not None:
            memory = gpu_ram / count
        arch = cell("GPU Arch") or None
        vcpus, ram = _quantity(row, "vCPUs"), _quantity(row, "RAM")
        provider = provider_slug(vendor)
        instance_type = _instance_type(count, gpu_name, memory, vcpus, ram)
        try:
            offers.append(RentalOffer(
                source=NAME, provider=provider, instance_type=instance_type, gpu_name=gpu_name,
                gpu_count=count,
                usd_per_hour=per_hour, usd_per_gpu_hour=usd_per_gpu_hour,
                vcpus=vcpus, memory_gib=ram, gpu_memory_gb=memory, gpu_arch=arch, as_of=as_of,
            ))
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise row.error(str(exc)) from None
    if disagreeing:
        warnings.append(
            f"{url}: {len(disagreeing)} row(s) whose Per-GPU differs from Per-Hour / GPUs (lines "
            f"{lines_said(disagreeing)}); the whole price divided is used"
        )
    return offers, warnings


def parse_serverless_gpus(body: bytes, url: str, as_of: date) -> list[RentalOffer]:
    """One offer per priced row of ``serverless-gpus.csv``, in file order. Raises only ParseError."""
    return read_serverless_gpus(body, url, as_of)[0]


def data_date(page: FetchedPage, commit: LastCommit | None = None) -> TableDate:
    """The date of a fetched version's prices: the commit's where the page is pinned to the commit the
    fetch's commits answer named (``commit``, given only then), a known version's own date, else of an
    unknown date (the newest known version's, ``FIXTURE_DATE``); never the day it was read."""
    return table_date(page, commit=commit, known_versions=KNOWN_VERSIONS, unknown_as_of=FIXTURE_DATE)


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    # The commit first, then the file as of it: the body is the version the date is of.
    commit = fetch_last_commit(ctx, out, _REPO, _PATH)
    ctx.report(f"{NAME}: {_PATH}{f' ({commit.sha[:7]} of {commit.day})' if commit else ''}")
    page = get_page(ctx, out, pinned_url(commit.sha) if commit else LIVE_URL)
    if page is not None:
        out.pages.append(page)
    return out


_parse, _parse_fetch = dated_table_parsers(NAME, "rental", _REPO, _PATH, read=read_serverless_gpus, data_date=data_date)


def _replay(fixtures: Path) -> Iterator[Recording]:
    answer = (fixtures / COMMITS_FIXTURE).read_bytes()
    yield Recording(page_from_file(NAME, answer, COMMITS_URL, at_midnight_utc(FIXTURE_DATE), "application/json; charset=utf-8"),
                    provenance=f"GitHub's commits API for {_REPO}:{_PATH} at {_SNAPSHOT}: last changed in "
                               f"{FIXTURE_COMMIT[:7]} ({FIXTURE_DATE}), written from the repository's history")
    body = (fixtures / FIXTURE).read_bytes()
    yield Recording(page_from_file(NAME, body, pinned_url(FIXTURE_COMMIT), at_midnight_utc(FIXTURE_DATE), "text/csv"),
                    provenance=f"{_REPO}@{_SNAPSHOT}:{_PATH} (last changed {FIXTURE_DATE} in {FIXTURE_COMMIT[:7]})")


SOURCE = Source(
    name=NAME,
    kind="rental",
    attribution="Serverless GPU prices from Full Stack Deep Learning's serverless GPU table (the-full-stack/website)",
    licence="MIT",
    fetch=_fetch,
    parse=_parse,
    parse_fetch=_parse_fetch,
    replay=_replay,
    default=False,  # GPU time billed per second of a job, not an instance: asked for by name
    label="FSDL serverless",
    sample_url=LIVE_URL,
    fixtures=(FIXTURE, COMMITS_FIXTURE),
)
