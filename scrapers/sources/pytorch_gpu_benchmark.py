"""pytorch-gpu-benchmark (lamikr's fork of ryujaehun's harness): torchvision CNNs on AMD ROCm and
NVIDIA cards, timed per iteration.

It is the one public harness that ran recent consumer AMD cards (RX 6800, RX 7800 XT, RX 7900 XTX)
and an RTX 4060 Ti 16 GB under the same script as an RTX 3090, so those cards get measured ratios.

What the files are (``results/<Vendor>/<run folder>/``):

- ``<prefix>__<half|float|double>_model_<train|inference>_benchmark.csv``: one column per
  torchvision model, one row per timed iteration, milliseconds, random 224x224 images. A training
  iteration is zero_grad + forward + loss + backward (no optimizer step); "half" casts the whole
  model with ``.half()`` (pure FP16), "float" is FP32, "double" FP64. One GeForce RTX 2080 Ti
  folder also holds ``float2`` files: a second FP32 run, published without saying what differs.
- ``config.json``: the script's arguments, among them BATCH_SIZE, already multiplied by the GPU
  count, and the count (GPU_COUNT, or NUM_GPU in the older script).
- ``system_info.txt``: start time, torch, ROCm/CUDA and cuDNN versions, device name, in three
  layouts over the years.
- Folders ending ``__2X``/``_2X`` (3X, 4X) are the same host's cards run together with
  DataParallel, the batch per GPU times the GPU count per iteration.

Why the side files are their own pages: each file is a URL of its own and a page must parse
alone, and a CSV says nothing about its batch. So a CSV page yields figures whose batch is
unknown, ``config.json`` and ``system_info.txt`` yield ``RunMetadata`` for their folder, and
``figures_from_records`` joins them (``gpuvalue.models.harness.join_run_metadata``). A folder
without ``config.json`` (most NVIDIA runs and the RX 7900 XTX) gets the script's default batch,
12, which the README states ("Each network is fed with 12 images"), flagged as a default. Until
joined, a figure's batch is unknown and it compares with nothing: a batch-4 run (the RX 7800 XT)
can never be compared with batch-12 runs by mistake.

``results/Nvidia/A100_SXM4_40GB/dgx.csv`` is not read: it gives times per batch and GPU count
without naming a workload or a unit.
"""

from __future__ import annotations

import csv
import io
import math
import re
import statistics
from collections.abc import Iterable, Iterator
from typing import Any
from datetime import date
from pathlib import Path

from gpuvalue.scrapers.bounded import json_document
from gpuvalue.models.harness import (
    HarnessFigure,
    Resolution,
    RunMetadata,
    device_key,
    join_run_metadata,
)
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.harness_pages import (
    contract_errors_as_parse_errors,
    decode_text,
    fetch_pages,
    positive_number,
    raw_github_url,
    recording,
)
from gpuvalue.scrapers.source import FetchContext, Harness, Recording, Source

NAME = "pytorch-gpu-benchmark"
REPO = "lamikr/pytorch-gpu-benchmark"
COMMIT = "43d16131b692f0b2bece0bbbbb3d75c73816d437"
COMMIT_DATE = date(2025, 1, 31)
FIXTURE_DIR = "perf/harnesses/pytorch-gpu-benchmark_lamikr"
DEFAULT_BATCH_SIZE = 12  # benchmark_models.py's default; the README: "Each network is fed with 12 images"
# The reference card (GeForce RTX 3090) ran the current script; the older script's runs compare
# among themselves, against the one card both scripts ran.
ANCHORS: tuple[str, ...] = ("GeForce RTX 2080 Ti",)
# Runs of the script before its 2020-01-17 rewrite (the README's "old_results": TITAN V, 1080 Ti,
# 2080 Ti; 20 timed iterations, 15 models). Their timings are not those of the current script
# (the TITAN V comes out faster than the RTX 3090 across them), so they form their own series.
OLD_SCRIPT_SERIES = "script before 2020-01-17"
_OLD_SCRIPT_RUNS = frozenset({"Nvidia/TITAN_V", "Nvidia/GeForce_GTX_1080_TI", "Nvidia/GeForce_RTX_2080_TI"})

_FULL = ("half", "float", "double")
_NO_DOUBLE = ("half", "float")
_SIDE = ("config.json", "system_info.txt")
# Every run folder at the pinned commit: (folder under results/, CSV name prefix where it differs
# from the folder name, precisions, side files). GitHub's raw host has no listing, so the list is
# kept here; a test checks it against the saved copy.
_RUNS: tuple[tuple[str, str | None, tuple[str, ...], tuple[str, ...]], ...] = (
    ("AMD/AMD_Radeon_680M", None, _NO_DOUBLE, _SIDE),
    ("AMD/AMD_Radeon_780M", None, _NO_DOUBLE, _SIDE),
    ("AMD/AMD_Radeon_RX_5700", None, _FULL, _SIDE),
    ("AMD/AMD_Radeon_RX_6800", None, _FULL, _SIDE),
    ("AMD/AMD_Radeon_RX_7700S", None, _FULL, _SIDE),
    ("AMD/AMD_Radeon_RX_7700S_NO_OPT", None, _NO_DOUBLE, _SIDE),
    ("AMD/AMD_Radeon_RX_7800_XT", None, _FULL, _SIDE),
    ("AMD/AMD_Radeon_RX_7900_XTX", None, _FULL, ()),
    ("Nvidia/A100_SXM4_40GB", None, _FULL, _SIDE),
    ("Nvidia/A100_SXM4_40GB_2X", "A100_SXM4_40GB__2X", _FULL, ()),
    ("Nvidia/A100_SXM4_40GB_3X", "A100_SXM4_40GB__3X", _FULL, ()),
    ("Nvidia/A100_SXM4_40GB_4X", "A100_SXM4_40GB__4X", _FULL, ()),
    ("Nvidia/GeForce_GTX_1080_TI", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_2060_MaxQ", None, _FULL, _SIDE),
    ("Nvidia/GeForce_RTX_2080_TI", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_2080_TI_V2", None, _FULL, ("system_info.txt",)),
    ("Nvidia/GeForce_RTX_2080_TI_V2__2X", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_2080_TI_V2__3X", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_2080_TI_V2__4X", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_3090", None, _FULL, _SIDE),
    ("Nvidia/GeForce_RTX_3090__2X", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_3090__3X", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_3090__4X", None, _FULL, ()),
    ("Nvidia/GeForce_RTX_4060_TI_16GB", None, _FULL, _SIDE),
    ("Nvidia/TITAN_RTX", None, _FULL, ("system_info.txt",)),
    ("Nvidia/TITAN_RTX__2X", None, _FULL, ()),
    ("Nvidia/TITAN_RTX__3X", None, _FULL, ()),
    ("Nvidia/TITAN_RTX__4X", None, _FULL, ()),
    ("Nvidia/TITAN_V", None, _FULL, ()),
    ("Nvidia/TITAN_XP", None, _FULL, _SIDE),
    ("Nvidia/TITAN_XP__2X", None, _FULL, ()),
    ("Nvidia/TITAN_XP__3X", None, _FULL, ()),
    ("Nvidia/TITAN_XP__4X", None, _FULL, ()),
)
# The second FP32 run of the first RTX 2080 Ti folder (note the "Ti" of the inference file).
_EXTRA_FILES = (
    "Nvidia/GeForce_RTX_2080_TI/GeForce_RTX_2080_TI__float2_model_train_benchmark.csv",
    "Nvidia/GeForce_RTX_2080_TI/GeForce_RTX_2080_Ti__float2_model_inference_benchmark.csv",
)

# Run folder (without the multi-GPU suffix) -> catalog model and exclusion. Checked by hand against
# each folder's system_info.txt where there is one ("TITAN Xp" is the 2017 TITAN Xp, not the 2016
# TITAN X Pascal; the RX 7700S is the laptop chip, not the desktop RX 7700).
ALIASES: dict[str, Resolution] = {
    device_key(k): v
    for k, v in {
        "AMD_Radeon_680M": ("Radeon 680M", "integrated"),
        "AMD_Radeon_780M": ("Radeon 780M", "integrated"),
        "AMD_Radeon_RX_5700": ("Radeon RX 5700", None),
        "AMD_Radeon_RX_6800": ("Radeon RX 6800", None),
        "AMD_Radeon_RX_7700S": ("Radeon RX 7700S", "laptop part"),
        "AMD_Radeon_RX_7700S_NO_OPT": ("Radeon RX 7700S", "laptop part; variant run (_NO_OPT)"),
        "AMD_Radeon_RX_7800_XT": ("Radeon RX 7800 XT", None),
        "AMD_Radeon_RX_7900_XTX": ("Radeon RX 7900 XTX", None),
        "A100_SXM4_40GB": ("A100 SXM4 40 GB", None),
        "GeForce_GTX_1080_TI": ("GeForce GTX 1080 Ti", None),
        "GeForce_RTX_2060_MaxQ": ("GeForce RTX 2060 Max-Q", "laptop part"),
        "GeForce_RTX_2080_TI": ("GeForce RTX 2080 Ti", None),
        "GeForce_RTX_2080_TI_V2": ("GeForce RTX 2080 Ti", None),
        "GeForce_RTX_3090": ("GeForce RTX 3090", None),
        "GeForce_RTX_4060_TI_16GB": ("GeForce RTX 4060 Ti 16 GB", None),
        "TITAN_RTX": ("TITAN RTX", None),
        "TITAN_V": ("TITAN V", None),
        "TITAN_XP": ("TITAN Xp", None),
    }.items()
}

_PRECISIONS = {"half": "fp16", "float": "fp32", "float2": "fp32", "double": "fp64"}
_PATH = re.compile(r"/results/(?P<vendor>[^/]+)/(?P<folder>[^/]+)/(?P<file>[^/]+)$")
_CSV_NAME = re.compile(
    r"^(?P<prefix>.+?)__(?P<precision>half|float2?|double)_model_(?P<mode>train|inference)_benchmark\.csv$"
)
_MULTI = re.compile(r"(?:__|_)(?P<n>\d+)X$")
_WORKLOAD = re.compile(r"^[a-z][a-z0-9_]*$")


def page_paths() -> list[str]:
    """Every file the source reads, relative to the repository root, side files of a run first."""
    paths: list[str] = []
    for folder, prefix, precisions, side in _RUNS:
        name = prefix or folder.split("/", 1)[1]
        paths.extend(f"results/{folder}/{f}" for f in side)
        paths.extend(
            f"results/{folder}/{name}__{p}_model_{mode}_benchmark.csv" for p in precisions for mode in ("train", "inference")
        )
    paths.extend(f"results/{p}" for p in _EXTRA_FILES)
    return paths


def page_url(path: str) -> str:
    return raw_github_url(REPO, COMMIT, path)


def _run_of(url: str) -> tuple[str, str, str]:
    """(vendor folder, run folder, file name) from a results URL."""
    found = _PATH.search(url)
    if not found:
        raise ParseError(NAME, url, "not a results/<vendor>/<run>/<file> URL")
    return found["vendor"], found["folder"], found["file"]


def split_run_folder(folder: str) -> tuple[str, int]:
    """('GeForce_RTX_3090', 2) from 'GeForce_RTX_3090__2X'; the count is 1 without a suffix."""
    found = _MULTI.search(folder)
    if not found:
        return folder, 1
    return folder[: found.start()], int(found["n"])


@contract_errors_as_parse_errors(NAME)
def parse_benchmark_csv(body: bytes, url: str) -> list[HarnessFigure]:
    """One figure per model column: the median of its timed iterations, in ms per iteration.

    The median, not the upstream mean: a few iterations of some runs stall (a 13.7 ms iteration
    among 5.4 ms ones), and one stall should not move a card's figure. Batch and software are
    not on this page (see the module docstring)."""
    vendor, folder, file = _run_of(url)
    named = _CSV_NAME.match(file)
    if not named:
        raise ParseError(NAME, url, f"not a benchmark CSV name: {file!r}")
    text = decode_text(body, NAME, url)
    try:
        rows = [r for r in csv.reader(io.StringIO(text)) if any(c.strip() for c in r)]
    except csv.Error as exc:
        raise ParseError(NAME, url, f"not CSV: {exc}") from None
    if len(rows) < 2:
        raise ParseError(NAME, url, "no timed iterations")
    header = [h.strip() for h in rows[0]]
    if not header or len(set(header)) != len(header) or not all(_WORKLOAD.match(h) for h in header):
        raise ParseError(NAME, url, f"unexpected header {header[:4]!r}")
    columns: list[list[float]] = [[] for _ in header]
    for line_no, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(header):
            raise ParseError(NAME, url, f"line {line_no}: {len(cells)} cells, expected {len(header)}")
        for column, value in zip(columns, _positive_numbers(cells, line_no, url), strict=True):
            column.append(value)

    base, gpus = split_run_folder(folder)
    precision = named["precision"]
    run = f"{vendor}/{folder}"
    old = run in _OLD_SCRIPT_RUNS and precision != "float2"  # the float2 files are a later run
    common: dict[str, Any] = dict(
        harness=NAME, device=folder, resolve_as=base, mode=named["mode"],
        precision=_PRECISIONS[precision], metric="ms_per_iter", gpu_count=gpus, framework="pytorch",
        run=run, baseline_run=f"{vendor}/{base}" if gpus > 1 else None, series=OLD_SCRIPT_SERIES if old else None,
        note="second FP32 run, published as 'float2'" if precision == "float2" else None,
    )
    return [
        HarnessFigure(workload=workload, value=statistics.median(values), iterations=len(values), **common)
        for workload, values in zip(header, columns, strict=True)
    ]


def _positive_numbers(cells: list[str], line_no: int, url: str) -> list[float]:
    """A line's cells as numbers, each as ``positive_number`` reads it. A run's CSVs hold about
    1.4 million cells, so a good line is converted in one pass and only a bad one is read cell by
    cell, for ``positive_number``'s message (float() ignores the surrounding blanks strip() drops)."""
    try:
        values = [float(cell) for cell in cells]
    except ValueError:
        pass
    else:
        if all(0 < v < math.inf for v in values):
            return values
    return [positive_number(cell.strip(), f"line {line_no}", NAME, url) for cell in cells]


@contract_errors_as_parse_errors(NAME)
def parse_config_json(body: bytes, url: str) -> RunMetadata:
    """The run's batch per GPU and GPU count from the script's saved arguments."""
    vendor, folder, _ = _run_of(url)
    try:
        data = json_document(decode_text(body, NAME, url))
    except ValueError as exc:
        raise ParseError(NAME, url, f"not JSON: {getattr(exc, 'msg', exc)}") from None
    if not isinstance(data, dict):
        raise ParseError(NAME, url, "not a JSON object")
    batch: Any = data.get("BATCH_SIZE")
    gpus: Any = data.get("GPU_COUNT", data.get("NUM_GPU", 1))
    for what, value in (("BATCH_SIZE", batch), ("GPU count", gpus)):
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ParseError(NAME, url, f"{what} is not a positive whole number: {value!r}")
    if batch % gpus:
        raise ParseError(NAME, url, f"BATCH_SIZE {batch} does not split over {gpus} GPUs")
    return RunMetadata(harness=NAME, run=f"{vendor}/{folder}", file="config.json", batch_size=batch // gpus,
                       gpu_count=gpus)


_KEY_VALUE = re.compile(r"^\s*(?P<key>[A-Za-z][A-Za-z_ ()]*?)\s*:\s*(?P<value>.*?)\s*$")
_START = re.compile(r"(?P<y>\d{4})/(?P<m>\d{2})/(?P<d>\d{2}) \d{2}:\d{2}:\d{2}")


def _info_key(key: str) -> str:
    return re.sub(r"[\s_]+", " ", key).strip().casefold()


@contract_errors_as_parse_errors(NAME)
def parse_system_info(body: bytes, url: str) -> RunMetadata:
    """Software, date and reported device of a run from its ``system_info.txt`` (all three layouts).

    On ROCm the "Cudnn" line holds MIOpen's version through PyTorch's cuDNN interface; it is kept
    as ``cudnn`` only for CUDA runs. "Number of GPUs on current device" counts the host's GPUs, not
    the run's, so it is not read."""
    vendor, folder, _ = _run_of(url)
    text = decode_text(body, NAME, url)
    values: dict[str, str] = {}
    for line in text.splitlines():
        found = _KEY_VALUE.match(line)
        if found:
            values.setdefault(_info_key(found["key"]), found["value"])
    started = _START.search(text)
    known = {"torch version", "rocm version", "cuda version", "cudnn version", "device name", "batch size"}
    if not started or not known & values.keys():
        raise ParseError(NAME, url, "no benchmark start time or GPU configuration lines")

    def given(key: str) -> str | None:
        value = values.get(key)
        return None if value is None or value in ("", "None") else value

    try:
        run_date = date(int(started["y"]), int(started["m"]), int(started["d"]))
    except ValueError:
        raise ParseError(NAME, url, f"not a date: {started.group(0)!r}") from None
    batch = given("batch size")
    if batch is not None and not batch.isdigit():
        raise ParseError(NAME, url, f"batch size is not a whole number: {batch!r}")
    cuda = given("cuda version")
    return RunMetadata(
        harness=NAME, run=f"{vendor}/{folder}", file="system_info.txt",
        batch_size=int(batch) if batch and int(batch) > 0 else None,
        framework_version=given("torch version"), cuda=cuda, rocm=given("rocm version"),
        cudnn=given("cudnn version") if cuda else None, date=run_date, device_reported=given("device name"),
    )


def figures_from_records(records: Iterable[HarnessFigure | RunMetadata]) -> list[HarnessFigure]:
    """The source's figures with each run's batch, software and date joined in."""
    return join_run_metadata(records, default_batch=DEFAULT_BATCH_SIZE)


def parse_page(page: FetchedPage) -> list[HarnessFigure | RunMetadata]:
    _, _, file = _run_of(page.url)
    if file == "config.json":
        return [parse_config_json(page.body, page.url)]
    if file == "system_info.txt":
        return [parse_system_info(page.body, page.url)]
    if file.endswith("_benchmark.csv"):
        return list(parse_benchmark_csv(page.body, page.url))
    raise ParseError(NAME, page.url, f"not a file this source reads: {file!r}")


def _fetch(ctx: FetchContext) -> SourceFetch:
    return fetch_pages(ctx, NAME, (page_url(p) for p in page_paths()))


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "benchmark", records=parse_page(page))


def _content_type(path: str) -> str:
    if path.endswith(".json"):
        return "application/json"
    if path.endswith(".csv"):
        return "text/csv; charset=utf-8"
    return "text/plain; charset=utf-8"


def _replay(fixtures: Path) -> Iterator[Recording]:
    for path in page_paths():
        yield recording(
            NAME, page_url(path), fixtures / FIXTURE_DIR / path, COMMIT_DATE,
            f"{REPO}@{COMMIT}:{path} ({COMMIT_DATE.isoformat()})", _content_type(path),
        )


SOURCE = Source(
    # A default source since its figures are stored and combined (docs/performance.md).
    default=True,
    name=NAME,
    kind="benchmark",
    export_kind="perf",
    attribution="pytorch-gpu-benchmark by Jaehun Ryu, AMD ROCm results by lamikr (github.com/lamikr/pytorch-gpu-benchmark)",
    licence="MIT",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    fixtures=(FIXTURE_DIR,),
    as_of=COMMIT_DATE,
    harness=Harness(anchors=ANCHORS, join_runs=figures_from_records, aliases=ALIASES),
)
