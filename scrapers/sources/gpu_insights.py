"""GPU-Insights (xiaoran007): training-throughput scores of many devices, in one JSON file.

It measured cards no other public table has under one script (RTX 5090, RTX 4070 SUPER, RTX 4080,
RTX 4080 SUPER, L40S, Tesla T4, RTX PRO 6000 Blackwell) beside an RTX 3090.

``docs-src/public/data/benchmark-data.json`` holds ``benchmarks[]`` rows: vendor, architecture,
device, memory, platform, ``fp32``/``fp16`` (score, null when not run), ``fp32bs``/``fp16bs``
(batch, 0 when the harness chose it: auto batch size, or the model's default), note, date
(``YYYY.M.D``), version, model.

- The score is training throughput (samples/s) times a constant per model and version: higher is
  better, comparable only within one model (workload) and one version, so the version is the
  figure's ``series``.
- "fp16" is 16-bit mixed precision (autocast with a gradient scaler); the newer launcher runs BF16
  on BF16-capable devices and files it under fp16, as the notes of those rows say ("BF16").
- The batch is each device's own (the largest that fits by the harness's calibration table, or
  the submitter's), so figures compare as each device's best throughput (``per-device``).
- ``resnet50`` runs on 3x32x32 images, not ImageNet's 224x224; ``vit`` is ViT-Base/16 at 224,
  ``unet`` at 256, ``ddpm`` at 64, ``cnn`` a 62K-parameter network.
- Multi-GPU rows are written "<device> - 2 GPUs" or "4x <device>"; their score and batch are for
  the whole system, so the batch per GPU is divided by the count.
- Rows are kept out of the ranking (``excluded``) when not one desktop or server GPU: "vGPU (...)"
  slices with a "vMemory" edition, laptop and Apple parts, a Jetson module, a TPU and an NPU,
  and a P104-100 run power-limited to 120 W (the same card's 180 W row is kept).
- Several rows have more memory than the catalog model (RTX 3080 20 GB and RTX 2080 Ti 22 GB,
  marked "Unofficial Video Memory Expansion"; RTX 4080 and 4080 SUPER at 32 GB): same chip and
  clocks, so they keep their model, with the difference in ``note``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from gpuvalue.scrapers.bounded import json_document
from gpuvalue.models.harness import HarnessFigure, Resolution, device_key
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.harness_pages import (
    contract_errors_as_parse_errors,
    decode_text,
    fetch_pages,
    raw_github_url,
    recording,
)
from gpuvalue.scrapers.source import FetchContext, Harness, Recording, Source

NAME = "gpu-insights"
REPO = "xiaoran007/GPU-Insights"
COMMIT = "7d7f1e1b89f67cc73f9247294f099bb681b12a96"  # last change of the file (metadata version 3.1)
COMMIT_DATE = date(2026, 5, 24)
PATH = "docs-src/public/data/benchmark-data.json"
URL = raw_github_url(REPO, COMMIT, PATH)
FIXTURE_DIR = "perf/harnesses/gpu-insights_xiaoran007"
FIXTURE_FILE = "benchmark-data.json"
ANCHORS: tuple[str, ...] = ()  # every scored model and version has an RTX 3090 row

_VGPU = "virtualised (vGPU)"
# Every device name of the pinned file (without multi-GPU markers), checked by hand. The matcher
# alone gets some wrong: "NVIDIA H100 80GB HBM3" is the SXM5 board (NVIDIA's H100 datasheet and the
# catalog: the SXM5 board has HBM3, the PCIe card HBM2e), not the PCIe card the matcher picks; it reads
# "Apple M4 GPU" as a Tesla M4. "NVIDIA A2" is "A2", as the matcher names it for listings (the
# catalog also has an identical "A2 PCIe").
ALIASES: dict[str, Resolution] = {
    device_key(k): v
    for k, v in {
        "TPU v6e chip": (None, "not a GPU (TPU)"),
        "Ascend910B2": (None, "not a GPU (NPU)"),
        "Mthreads S4000": (None, "not in catalog (Moore Threads MTT S4000)"),
        "NVIDIA H20": (None, "not in catalog (H20)"),
        "Apple M1 GPU": (None, "integrated (Apple silicon)"),
        "Apple M1 Max GPU": (None, "integrated (Apple silicon)"),
        "Apple M4 GPU": (None, "integrated (Apple silicon)"),
        "NVIDIA Jetson Orin Nano Super": ("Jetson Orin Nano Super", "integrated (Jetson module)"),
        "NVIDIA GeForce RTX 5060 Laptop GPU": ("GeForce RTX 5060 Mobile", "laptop part"),
        "NVIDIA vGPU (RTX 4090)": ("GeForce RTX 4090", _VGPU),
        "NVIDIA vGPU (RTX 4080 SUPER)": ("GeForce RTX 4080 SUPER", _VGPU),
        "NVIDIA vGPU (RTX 3090)": ("GeForce RTX 3090", _VGPU),
        "NVIDIA P104-100 (120W)": ("P104-100", "variant run (power-limited to 120 W)"),
        "NVIDIA P104-100 (180W)": ("P104-100", None),
        "Radeon Instinct MI50": ("Radeon Instinct MI50", None),
        "Intel Arc A770 Graphics": ("Arc A770", None),
        "NVIDIA GeForce RTX 5090": ("GeForce RTX 5090", None),
        "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": ("RTX PRO 6000 Blackwell", None),
        "NVIDIA RTX PRO 6000 Blackwell Server Edition": ("RTX PRO 6000 Blackwell Server", None),
        "NVIDIA H100 80GB HBM3": ("H100 SXM5 80 GB", None),
        "NVIDIA GeForce RTX 4090": ("GeForce RTX 4090", None),
        "NVIDIA GeForce RTX 4090 D": ("GeForce RTX 4090 D", None),
        "NVIDIA GeForce RTX 4080 SUPER": ("GeForce RTX 4080 SUPER", None),
        "NVIDIA GeForce RTX 4080": ("GeForce RTX 4080", None),
        "NVIDIA GeForce RTX 4070 SUPER": ("GeForce RTX 4070 SUPER", None),
        "NVIDIA L40S": ("L40S", None),
        "NVIDIA A2": ("A2", None),
        "NVIDIA A100-PCIE": ("A100 PCIe 40 GB", None),
        "NVIDIA A100-SXM4-40GB": ("A100 SXM4 40 GB", None),
        "NVIDIA GeForce RTX 3090": ("GeForce RTX 3090", None),
        "NVIDIA GeForce RTX 3080": ("GeForce RTX 3080", None),
        "NVIDIA RTX A5500": ("RTX A5500", None),
        "NVIDIA RTX A5000": ("RTX A5000", None),
        "NVIDIA GeForce RTX 2080 Ti": ("GeForce RTX 2080 Ti", None),
        "Quadro RTX 6000": ("Quadro RTX 6000", None),
        "Tesla T4": ("Tesla T4", None),
        "Tesla V100S-PCIE": ("Tesla V100S PCIe 32 GB", None),
        "Tesla V100-PCIE-32GB": ("Tesla V100 PCIe 32 GB", None),
        "NVIDIA TITAN X (Pascal)": ("TITAN X Pascal", None),
        "NVIDIA TITAN Xp": ("TITAN Xp", None),
    }.items()
}

_SUFFIX_COUNT = re.compile(r"\s+-\s+(?P<n>\d+)\s+GPUs?\s*$", re.IGNORECASE)
_PREFIX_COUNT = re.compile(r"^\s*(?P<n>\d+)\s*x\s+", re.IGNORECASE)
_DATE = re.compile(r"^(?P<y>\d{4})\.(?P<m>\d{1,2})\.(?P<d>\d{1,2})$")
_MEMORY = re.compile(r"^(?P<gb>\d+(?:\.\d+)?)\s*GB$", re.IGNORECASE)
_WORKLOAD = re.compile(r"^[A-Za-z0-9][\w.-]*$")
_PYTORCH = re.compile(r"\bPyTorch\s+(?P<v>\d[\w.+]*)", re.IGNORECASE)
_CUDA = re.compile(r"\bCUDA\s+(?P<v>\d+(?:\.\d+)+)")
_ROCM = re.compile(r"\bROCm\s+(?P<v>\d+(?:\.\d+)+)", re.IGNORECASE)


def split_device(device: str) -> tuple[str, int]:
    """('NVIDIA RTX A5000', 2) from 'NVIDIA RTX A5000 - 2 GPUs'; '4x Tesla V100-PCIE-32GB' too."""
    for pattern in (_SUFFIX_COUNT, _PREFIX_COUNT):
        found = pattern.search(device)
        if found:
            return (device[: found.start()] + device[found.end() :]).strip(), int(found["n"])
    return device.strip(), 1


def _version(pattern: re.Pattern[str], note: str) -> str | None:
    found = pattern.search(note)
    return found["v"] if found else None


def _row_date(text: object) -> date | None:
    found = _DATE.match(text) if isinstance(text, str) else None
    if not found:
        return None
    try:
        return date(int(found["y"]), int(found["m"]), int(found["d"]))
    except ValueError:
        return None


def _memory_gb(memory: object) -> float | None:
    """The device memory a row publishes ("24 GB"), None where it states none."""
    found = _MEMORY.match(memory.strip()) if isinstance(memory, str) else None
    return float(found["gb"]) if found else None


def _text(row: dict, key: str, where: str, url: str) -> str:
    value = row.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ParseError(NAME, url, f"{where}: {key} is not a non-empty string: {value!r}")
    return value.strip()


@contract_errors_as_parse_errors(NAME)
def parse_benchmark_data(
    body: bytes,
    url: str,
) -> list[HarnessFigure]:
    """One figure per row and precision that has a score (training, metric ``score``)."""
    try:
        data = json_document(decode_text(body, NAME, url))
    except ValueError as exc:
        raise ParseError(NAME, url, f"not JSON: {getattr(exc, 'msg', exc)}") from None
    rows = data.get("benchmarks") if isinstance(data, dict) else None
    if not isinstance(rows, list) or not rows:
        raise ParseError(NAME, url, "no benchmarks list")
    figures = []
    for index, row in enumerate(rows):
        where = f"benchmarks[{index}]"
        if not isinstance(row, dict):
            raise ParseError(NAME, url, f"{where} is not an object")
        device = _text(row, "device", where, url)
        workload = _text(row, "model", where, url)
        version = _text(row, "version", where, url)
        if not _WORKLOAD.match(workload):
            raise ParseError(NAME, url, f"{where}: unexpected model {workload!r}")
        base, gpus = split_device(device)
        upstream: str = row["note"] if isinstance(row.get("note"), str) else ""
        notes = [f"upstream note: {upstream.strip()}"] if upstream.strip() else []
        for precision in ("fp32", "fp16"):
            score = row.get(precision)
            if score is None:
                continue  # not run at this precision
            if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0 < score < math.inf:
                raise ParseError(NAME, url, f"{where}: {precision} is not a positive number: {score!r}")
            batch = row.get(f"{precision}bs")
            if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 0):
                raise ParseError(NAME, url, f"{where}: {precision}bs is not a whole number: {batch!r}")
            bf16 = precision == "fp16" and re.search(r"\bBF16\b", upstream or "")
            figures.append(
                HarnessFigure(
                    harness=NAME, device=device, resolve_as=base, memory_gb=_memory_gb(row.get("memory")), workload=workload, mode="train",
                    precision=precision, metric="score", value=float(score),
                    batch_size=batch // gpus if batch and batch % gpus == 0 else None, batch_basis="per-device",
                    gpu_count=gpus, framework="pytorch",
                    framework_version=_version(_PYTORCH, upstream), cuda=_version(_CUDA, upstream),
                    rocm=_version(_ROCM, upstream),
                    date=_row_date(row.get("date")), series=version, run=where,
                    note="; ".join([*notes, "BF16 in the fp16 column"] if bf16 else notes) or None,
                )
            )
    return figures


def _fetch(ctx: FetchContext) -> SourceFetch:
    return fetch_pages(ctx, NAME, [URL])


def _parse(page: FetchedPage) -> ParsedSource:
    if page.url != URL:
        raise ParseError(NAME, page.url, "not the pinned benchmark-data.json")
    return ParsedSource(NAME, "benchmark", records=list(parse_benchmark_data(page.body, page.url)))


def _replay(fixtures: Path) -> Iterator[Recording]:
    yield recording(
        NAME, URL, fixtures / FIXTURE_DIR / FIXTURE_FILE, COMMIT_DATE,
        f"{REPO}@{COMMIT}:{PATH} ({COMMIT_DATE.isoformat()})", "application/json",
    )


SOURCE = Source(
    # A default source since its figures are stored and combined (docs/performance.md).
    default=True,
    name=NAME,
    kind="benchmark",
    export_kind="perf",
    attribution="GPU-Insights by xiaoran007 (github.com/xiaoran007/GPU-Insights)",
    licence="BSD-3-Clause",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    fixtures=(FIXTURE_DIR,),
    as_of=COMMIT_DATE,
    harness=Harness(anchors=ANCHORS, aliases=ALIASES),
)
