"""Full Stack Deep Learning's cloud GPU table: on-demand and spot prices of GPU instances at about twenty clouds.

FSDL keeps ``docs/cloud-gpus/cloud-gpus.csv`` in ``the-full-stack/website`` by hand, one row per
instance configuration (AWS, GCP, Azure, Lambda, RunPod, Paperspace, ...). Its git history is the
point: 53 dated versions since August 2022 show how rental prices moved, which a buy-or-rent answer
needs next to today's prices.

Live fetch reads the newest version only (the ``main`` branch file): the daily run records what the
table says today. The history comes from replay: every committed version is recorded under the raw
URL pinned to its commit, dated by the commit, and the newest also under the live URL, since one URL
holds one recording; a replay run reads the last version of each commit date, then the newest.
``as_of`` is the commit date for a pinned URL, the capture date otherwise.

This source does not read ``serverless-gpus.csv``, the serverless table. Its prices are for GPU time
on inference platforms billed per second of request, with cold starts and no machine to keep, so they
are not offers of an instance like this table's rows; this source skips it on purpose.

The file was edited by hand for years and shows it: ``$`` prefixes and thousands commas on prices,
blank spot prices, GPU counts and vCPU/RAM given as ranges, a repeated header row, rows with no
price. The parser keeps what is a definite offer, skips the rest with a warning, and refuses a file
whose header lacks a column it needs.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from datetime import date, datetime, timezone
from pathlib import Path

from gpuvalue.models.cloud_names import match_cloud_gpu, memory_from_name
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import RentalOffer
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.archive import sha256_hex
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.money import parse_price
from gpuvalue.scrapers.source import FetchContext, Recording, Source

NAME = "fsdl-cloud-gpus"

_REPO = "the-full-stack/website"
_PATH = "docs/cloud-gpus/cloud-gpus.csv"
LIVE_URL = f"https://raw.githubusercontent.com/{_REPO}/main/{_PATH}"

REQUIRED_COLUMNS = ("Cloud", "GPU Type", "GPUs", "On-demand", "Per-GPU", "Spot")
OPTIONAL_COLUMNS = ("GPU Arch", "GPU RAM", "vCPUs", "RAM", "Name")

# Every committed version of the file up to the saved snapshot, oldest first: (commit, commit date).
# The fixtures hold each as history/cloud-gpus_<date>_<short hash>.csv, listed in history/commits.txt.
HISTORY: tuple[tuple[str, str], ...] = (
    ("64463be8ccb1aadee2799015fdb0dfd7c8a4edee", "2022-08-04"),
    ("7a2b7ffea2a64c8c0d0164a29e78d530f4bda6b4", "2022-08-05"),
    ("13432d39fe1d8d129d37d03dac835205da019556", "2022-08-05"),
    ("b1db06610d4a275dc4944f0c7c0671fc8cffb5a4", "2022-08-05"),
    ("9543ed8e8b8f1a97fab7ec587fc626e86f911976", "2022-08-05"),
    ("8309cb76d7c3d3398d99c2a43ac95a7a16ff150c", "2022-08-06"),
    ("3c7530647373d898cfbf3ffdce1a462bb87b01bd", "2022-08-08"),
    ("ee9438087f346fa35fd2a91fbe101ea2e9182462", "2022-08-08"),
    ("95e9bdb6724c68a55f635075e771c97ce14afbd6", "2022-08-08"),
    ("7b63feef72ff7dfdc1f64578969f8e5a66fc77b5", "2022-08-11"),
    ("f3dae569a7f37533105fcfa2d372c263ee3640f5", "2022-08-11"),
    ("0c7e8190b964b28b92ba6be2a2890dcc54ef89bc", "2022-08-26"),
    ("a6497fc55b1c2e41fd4495ea0d8d7df1a9fb39f4", "2022-08-26"),
    ("b2ac5dde71ba54b96846d721b79e20f07909d4db", "2022-12-12"),
    ("951b958281b47b976037f89b68dafaf6633d3897", "2023-01-10"),
    ("0c4a04da6e029d4588a57b72a70052f61d3a7bc6", "2023-02-01"),
    ("1de8fdfd44733c64ce9656aed98c5bb41ba1982d", "2023-04-13"),
    ("23400517c84a965d124720909d16864bdd3feebf", "2023-05-12"),
    ("9b08a38b57a5a6548ad28a9df7c3c41e905a3fbf", "2023-05-12"),
    ("6d05ea5e2e220e3e743566bb36cd05e242cad193", "2023-05-20"),
    ("0f46a5d8cccd88b3bcb5b350e66773d9b56d5e15", "2023-05-22"),
    ("d33c0be41e91702ad06b222b249e08850a02f631", "2023-05-22"),
    ("02e015c8b5874c478bd3128eb368180f4fcbf60f", "2023-05-22"),
    ("480a63ea6e7d2c57b8ecb4247da2770cd9d1f932", "2023-05-22"),
    ("51fb49e205ca2ccb450abace0a7c8a22dc02e81f", "2023-05-22"),
    ("b2d405f4adc529fd01a3dc6349e0c0a82a3665d4", "2023-05-22"),
    ("49c8dc059003864d349b00ad8a18deb53c3d219f", "2023-05-23"),
    ("f2f2d4b6f3a4840176f1cb63b2937ca809e56832", "2023-05-24"),
    ("5e388f2dad67c0098f8c8a61f3d2d0cf012b22d3", "2023-05-24"),
    ("879c0233992dec95e01e113033c21b9236307bf6", "2023-05-24"),
    ("44dbd0c2f6b64e0e27fe786aa4a65d682ea5fa62", "2023-05-24"),
    ("c7a06d129444cc5ef1eea2f673a54d2236d35fbf", "2023-05-24"),
    ("a40c9eb12b184cb59d8186d0d4311e0901bcf2f2", "2023-05-24"),
    ("42c70d1fb40fa7b52f7c67ab01aae9c516e3cd4c", "2023-05-24"),
    ("c23da00ea41724eb41e001dea74b093c2e966b26", "2023-05-29"),
    ("b08f276984ecf7bd3239f8135711b06447bd4eb8", "2023-06-20"),
    ("88ef1138cb161ce5e16dbe8252c4192212526807", "2023-06-22"),
    ("9d01a0c644373da255ec2793525e7b75b1128b3b", "2023-08-16"),
    ("905fe14d9b2c437df475de4dc2142462961ce99d", "2023-10-23"),
    ("6357af9dbca0c880ded2f75f5ca929798272463e", "2023-10-30"),
    ("8ad351a21a20bc41e7ff20f0276e048578c53761", "2023-10-31"),
    ("e1c1d272e19dc14fba96e07ff61e792d58e37a8f", "2023-10-30"),
    ("8266cd69ec79153676e22ffedb4924899f865f2f", "2023-10-30"),
    ("dd7027c2ea9e1ef3a66174a05b23fdbbd2399308", "2023-10-30"),
    ("1ae55acd629623e30528115eedeed2a33c7f0688", "2024-02-08"),
    ("600997c2ba66a9bab9f0559a7c48df322d964c15", "2024-02-14"),
    ("99c6fdd48c1ac5b1e989b019d613e01fdf3666a6", "2024-02-23"),
    ("7d9be866b8fbb15f9ca98a68a23a5710d7eaa5ee", "2024-02-27"),
    ("75149f459f89d200ecd992d4d534fc21febf8e90", "2024-02-27"),
    ("0d4b8c9e9ef0b762c78c19d2a0adc76be742510a", "2024-05-07"),
    ("0f0c719a7799fb7d7ac4674020464903a6be9237", "2024-05-20"),
    ("d9c548b274eb1e9bdb61bf2fabebeb4be64011d7", "2025-02-24"),
    ("b646e30673738a5a60ab299659bf2f012e59be93", "2025-03-07"),
)
# The snapshot commit the newest version was saved at (its file is the same as the last in HISTORY).
_SNAPSHOT = "2bddc6d52544dc258e7e34396c6958377f72816b"
_HEAD_FIXTURE = "cloud/fsdl_cloud-gpus/cloud-gpus_HEAD_2025-03-07.csv"

_COMMIT_DATES = {commit: date.fromisoformat(day) for commit, day in HISTORY}
_PINNED = re.compile(rf"^https://raw\.githubusercontent\.com/{re.escape(_REPO)}/([0-9a-f]{{40}})/{re.escape(_PATH)}$")
_RANGE = re.compile(r"^\[?\s*\d+(?:\.\d+)?\s*-\s*\d+(?:\.\d+)?\s*\]?$")
# Per-GPU and On-demand / GPUs may differ a little by rounding; beyond this they say different things.
_PER_GPU_TOLERANCE = 0.02

# FSDL's cloud names, lower-cased with hyphens, except where another source names the same cloud.
_PROVIDER_ALIASES = {"runpod.io": "runpod"}


def pinned_url(commit: str) -> str:
    """The raw URL of the file as it was at ``commit``."""
    return f"https://raw.githubusercontent.com/{_REPO}/{commit}/{_PATH}"


def history_fixture(commit: str, day: str) -> str:
    return f"cloud/fsdl_cloud-gpus/history/cloud-gpus_{day}_{commit[:7]}.csv"


def commit_date(url: str) -> date | None:
    """The commit date of a URL pinned to a known commit; None for the live URL or an unknown commit."""
    match = _PINNED.match(url)
    return _COMMIT_DATES.get(match.group(1)) if match else None


def provider_slug(cloud: str) -> str:
    slug = "-".join(cloud.casefold().split())
    return _PROVIDER_ALIASES.get(slug, slug)


def _money(value: str, what: str, url: str, line: int) -> float | None:
    """A USD price per hour as the table writes it ("$1.10", "0.125"), read by the one money parser
    with the table's decimal point."""
    text = value.strip()
    if not text:
        return None
    money = parse_price(text, default="USD", decimal=".")
    if money is None or money.currency != "USD":
        raise ParseError(NAME, url, f"line {line}: {what} {value!r} is not a price")
    return money.amount


def _quantity(value: str, what: str, url: str, line: int) -> float | None:
    """A count or size; None when blank or a range (``4-6``, ``[4-6]``), which names no one offer."""
    text = value.strip().replace(",", "")
    if not text or _RANGE.match(text):
        return None
    try:
        number = float(text)
    except ValueError:
        raise ParseError(NAME, url, f"line {line}: {what} {value!r} is not a number") from None
    if not math.isfinite(number):
        raise ParseError(NAME, url, f"line {line}: {what} {value!r} is not a number")
    return number


def read_fsdl_cloud_gpus(body: bytes, url: str, as_of: date) -> tuple[list[RentalOffer], list[str]]:
    """One offer per priced row of a ``cloud-gpus.csv`` version, in file order, and warnings for the rows
    skipped or doubted. Raises only ParseError."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParseError(NAME, url, "not UTF-8 text") from None
    if "\x00" in text:
        raise ParseError(NAME, url, "binary content, not a CSV file")
    try:
        rows = list(csv.reader(io.StringIO(text, newline="")))
    except csv.Error as exc:
        raise ParseError(NAME, url, f"not CSV: {exc}") from None
    if not rows:
        raise ParseError(NAME, url, "empty file")
    header = [h.strip() for h in rows[0]]
    for column in REQUIRED_COLUMNS:
        if column not in header:
            raise ParseError(NAME, url, f"column {column!r} missing from the header (has {', '.join(header)})")
    col = {name: header.index(name) for name in (*REQUIRED_COLUMNS, *OPTIONAL_COLUMNS) if name in header}

    offers: list[RentalOffer] = []
    warnings: list[str] = []
    disagreeing: list[int] = []
    unchecked: list[int] = []
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue
        if len(row) != len(header):
            raise ParseError(NAME, url, f"line {line}: {len(row)} cells for {len(header)} columns")

        def cell(name: str) -> str:
            return row[col[name]].strip() if name in col else ""

        if cell("Cloud") == "Cloud":
            warnings.append(f"{url} line {line}: a repeated header row, skipped")
            continue
        cloud, gpu_name = cell("Cloud"), cell("GPU Type")
        if not cloud or not gpu_name:
            raise ParseError(NAME, url, f"line {line}: no {'Cloud' if not cloud else 'GPU Type'}")
        gpus = _quantity(cell("GPUs"), "GPUs", url, line)
        if gpus is None or gpus < 1 or gpus != int(gpus):
            warnings.append(f"{url} line {line}: {cloud} {gpu_name}: GPU count {cell('GPUs')!r} names no one offer, skipped")
            continue
        count = int(gpus)
        on_demand = _money(cell("On-demand"), "On-demand", url, line)
        per_gpu = _money(cell("Per-GPU"), "Per-GPU", url, line)
        spot = _money(cell("Spot"), "Spot", url, line)
        if on_demand is None and per_gpu is None and spot is None:
            warnings.append(f"{url} line {line}: {cloud} {gpu_name}: no price, skipped")
            continue
        usd_per_gpu_hour: float | None = None
        if on_demand is not None:
            usd_per_gpu_hour = round(on_demand / count, 6)
            if per_gpu is not None and abs(usd_per_gpu_hour - per_gpu) > _PER_GPU_TOLERANCE * max(per_gpu, usd_per_gpu_hour):
                disagreeing.append(line)
        elif per_gpu is not None:
            usd_per_gpu_hour = per_gpu
            if count > 1:
                unchecked.append(line)

        gpu_ram = _quantity(cell("GPU RAM"), "GPU RAM", url, line)
        memory = memory_from_name(gpu_name)
        if memory is None and gpu_ram is not None:
            memory = gpu_ram / count
        arch = cell("GPU Arch") or None
        instance_type = cell("Name") or None
        provider = provider_slug(cloud)
        match = match_cloud_gpu(gpu_name, memory_gb=memory, arch=arch, provider=provider, instance_type=instance_type)
        try:
            offers.append(
                RentalOffer(
                    source=NAME,
                    provider=provider,
                    instance_type=instance_type,
                    gpu_name=gpu_name,
                    model=match.model,
                    match_reason=match.reason,
                    gpu_count=count,
                    usd_per_hour=on_demand,
                    usd_per_gpu_hour=usd_per_gpu_hour,
                    spot_usd_per_hour=spot,
                    spot_usd_per_gpu_hour=None if spot is None else round(spot / count, 6),
                    vcpus=_quantity(cell("vCPUs"), "vCPUs", url, line),
                    memory_gib=_quantity(cell("RAM"), "RAM", url, line),
                    gpu_memory_gb=memory,
                    gpu_arch=arch,
                    as_of=as_of,
                )
            )
        except ValueError as exc:  # pydantic's ValidationError is a ValueError
            raise ParseError(NAME, url, f"line {line}: {exc}") from None
    if disagreeing:
        warnings.append(
            f"{url}: {len(disagreeing)} row(s) whose Per-GPU differs from On-demand / GPUs (lines "
            f"{', '.join(map(str, disagreeing[:10]))}{', ...' if len(disagreeing) > 10 else ''}); the whole-instance price divided is used"
        )
    if unchecked:
        warnings.append(
            f"{url}: {len(unchecked)} multi-GPU row(s) with only a Per-GPU price, taken as published (lines "
            f"{', '.join(map(str, unchecked[:10]))}{', ...' if len(unchecked) > 10 else ''})"
        )
    return offers, warnings


def parse_fsdl_cloud_gpus(body: bytes, url: str, as_of: date) -> list[RentalOffer]:
    """One offer per priced row of a ``cloud-gpus.csv`` version, in file order. Raises only ParseError."""
    return read_fsdl_cloud_gpus(body, url, as_of)[0]


def replay_history() -> list[tuple[str, date]]:
    """The version a replay reads for each commit date before the newest, oldest first: the day's last
    commit, so that one date is one version (a later load of a date replaces it). Commit dates are not
    always in commit order (2023-10-31 ``8ad351a`` precedes three commits dated 2023-10-30); a day whose
    last commit is older than an earlier day's is skipped, so prices never step back to a superseded
    version. The newest date is the live URL's."""
    position = {commit: i for i, (commit, _) in enumerate(HISTORY)}
    last_of_day: dict[date, str] = {}
    for commit, day in HISTORY:
        last_of_day[date.fromisoformat(day)] = commit
    newest = date.fromisoformat(HISTORY[-1][1])
    chosen: list[tuple[str, date]] = []
    for day in sorted(last_of_day):
        commit = last_of_day[day]
        if day < newest and (not chosen or position[commit] > position[chosen[-1][0]]):
            chosen.append((commit, day))
    return chosen


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    if ctx.replay:
        # The recorded history is the point of this source: a replay loads every dated version, so the
        # warehouse starts with rental prices since 2022 rather than one day of them.
        history = replay_history()
        ctx.report(f"{NAME}: {len(history)} dated versions of {_PATH}, then the newest")
        out.pages.extend(ctx.client.get(pinned_url(commit), source=NAME) for commit, _ in history)
    ctx.report(f"{NAME}: {_PATH} (newest version)")
    out.pages.append(ctx.client.get(LIVE_URL, source=NAME))
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    offers, warnings = read_fsdl_cloud_gpus(page.body, page.url, commit_date(page.url) or page.fetched_at.date())
    return ParsedSource(NAME, "rental", records=offers, warnings=warnings)


def _at(day: date) -> datetime:
    return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)


def _page(url: str, body: bytes, day: date) -> FetchedPage:
    return FetchedPage(source=NAME, url=url, status=200, fetched_at=_at(day), sha256=sha256_hex(body), body=body,
                       content_type="text/csv")


def _replay(fixtures: Path) -> Iterator[Recording]:
    for commit, day in HISTORY:
        body = (fixtures / history_fixture(commit, day)).read_bytes()
        yield Recording(_page(pinned_url(commit), body, date.fromisoformat(day)), provenance=f"{_REPO}@{commit}:{_PATH} ({day})")
    newest_commit, newest_day = HISTORY[-1]
    body = (fixtures / _HEAD_FIXTURE).read_bytes()
    yield Recording(
        _page(LIVE_URL, body, date.fromisoformat(newest_day)),
        provenance=f"{_REPO}@{_SNAPSHOT}:{_PATH} (last changed {newest_day} in {newest_commit[:7]})",
    )


SOURCE = Source(
    name=NAME,
    kind="rental",
    attribution="Cloud GPU prices from Full Stack Deep Learning's cloud GPU table (the-full-stack/website)",
    licence="MIT",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    fixtures=(_HEAD_FIXTURE, *(history_fixture(commit, day) for commit, day in HISTORY)),
)
