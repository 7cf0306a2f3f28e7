"""deep-learning-benchmark (Yusaku Sako, 2017-19): VGG-16, ResNet-152 and DenseNet-161 step times
on a Tesla V100, TITAN V, GTX 1080 Ti and RTX 2080 Ti, in PyTorch, TensorFlow and Caffe2.

Four cards that Lambda's tables also have, at 32 and 16 bits under several frameworks: a check on
how much framework and precision move a card's ratio.

The README has a "## <Framework> <version>" section per framework release, each with "### 32-bit"
and "### 16-bit" tables: one row per GPU, columns "<network> eval" and "<network> train" in ms
("31.3ms"; empty where not run). "Eval" is one forward pass, "train" one forward and backward
pass (no optimizer step), batch 16 at 224x224. "16-bit" casts the model to FP16 (``.half()`` in
the PyTorch code), "32-bit" is FP32. The batch is stated in the PyTorch 0.3.0 section; the other
sections do not restate it and get the same 16, flagged as the harness default. CUDA and cuDNN
are the README's (CUDA 9.0.176, cuDNN 7.0.0.5, "except where noted") unless a row's GPU cell
notes its own.

There is no RTX 3090: ratios are against the TITAN V (else the GTX 1080 Ti) within one framework
release, the figure's series. "V100 (Amazon p3, ...)" ran on an AWS p3 instance, whose V100s are
SXM2 boards with NVLink (AWS's P3 instance page; the README's GPU table names p3.2xlarge, one
16 GB V100); the bare "V100" row of TensorFlow 1.5.0 is the same contributor's V100 (the README's
GPU table lists only that one), so both are ``Tesla V100 SXM2 16 GB``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Literal

from gpuvalue.models.harness import HarnessFigure, Resolution, device_key
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.harness_pages import (
    contract_errors_as_parse_errors,
    decode_text,
    fetch_pages,
    markdown_tables,
    positive_number,
    raw_github_url,
    recording,
)
from gpuvalue.scrapers.source import FetchContext, Harness, Recording, Source

NAME = "deep-learning-benchmark"
REPO = "u39kun/deep-learning-benchmark"
COMMIT = "9dc3e36e6f97e0edf270a813f350fca1fb0e014e"
COMMIT_DATE = date(2019, 9, 27)
URL = raw_github_url(REPO, COMMIT, "README.md")
FIXTURE_DIR = "perf/harnesses/deep-learning-benchmark_u39kun"
FIXTURE_FILE = "README_source.md"
ANCHORS: tuple[str, ...] = ("TITAN V", "GeForce GTX 1080 Ti")

ALIASES: dict[str, Resolution] = {
    device_key(k): v
    for k, v in {
        "Titan V": ("TITAN V", None),
        "1080 Ti": ("GeForce GTX 1080 Ti", None),
        "2080 Ti": ("GeForce RTX 2080 Ti", None),
        "V100 (Amazon p3)": ("Tesla V100 SXM2 16 GB", None),
        "V100": ("Tesla V100 SXM2 16 GB", None),
    }.items()
}

_FRAMEWORKS = {"pytorch": "pytorch", "tensorflow": "tensorflow", "caffe2": "caffe2"}
_SECTION = re.compile(r"^##\s+(?P<framework>[A-Za-z0-9]+)\s+(?P<version>\d+(?:\.\d+)+)\s*$")
_TOP_HEADING = re.compile(r"^#{1,2}\s+\S")
_BITS = re.compile(r"^###\s+(?P<bits>16|32)-bit\s*$")
_COLUMN = re.compile(r"^(?P<workload>[a-z0-9_]+)\s+(?P<mode>eval|train)$")
_MS = re.compile(r"^(?P<ms>\d+(?:\.\d+)?)\s*ms$")
_BATCH = re.compile(r"batch size of (?P<batch>\d+)", re.IGNORECASE)
_DEFAULT_CUDA = re.compile(r"^\*\s*CUDA\s+(?P<v>\d+(?:\.\d+)+)\s*$", re.MULTILINE)
_DEFAULT_CUDNN = re.compile(r"^\*\s*CuDNN\s+(?P<v>\d+(?:\.\d+)+)\s*$", re.MULTILINE | re.IGNORECASE)
_NOTE = re.compile(r"^(?P<name>[^(]+?)\s*\((?P<inner>[^)]*)\)\s*$")
_CUDA_NOTE = re.compile(r"^CUDA\s+(?P<v>\d+(?:\.\d+)+)$")
_CUDNN_NOTE = re.compile(r"^CuDNN\s+(?P<v>\d+(?:\.\d+)+)$", re.IGNORECASE)


def split_gpu_cell(cell: str) -> tuple[str, str | None, str | None]:
    """('V100 (Amazon p3)', '9.0.176', '7.0.0.3') from 'V100 (Amazon p3, CUDA 9.0.176, CuDNN 7.0.0.3)':
    the device as written without its software notes, and the CUDA and cuDNN it notes."""
    found = _NOTE.match(cell.strip())
    if not found:
        return cell.strip(), None, None
    cuda = cudnn = None
    rest = []
    for part in (p.strip() for p in found["inner"].split(",")):
        if (m := _CUDA_NOTE.match(part)) is not None:
            cuda = m["v"]
        elif (m := _CUDNN_NOTE.match(part)) is not None:
            cudnn = m["v"]
        elif part:
            rest.append(part)
    name = found["name"].strip()
    return (f"{name} ({', '.join(rest)})" if rest else name), cuda, cudnn


def _sections(lines: list[str]) -> list[tuple[tuple[str, str] | None, str | None]]:
    """Per line, the framework section it is in, (framework, version), and the "16"/"32" of the
    precision heading above it within that section; None outside one."""
    out: list[tuple[tuple[str, str] | None, str | None]] = []
    current: tuple[str, str] | None = None
    bits: str | None = None
    for line in lines:
        found = _SECTION.match(line)
        if found and found["framework"].lower() in _FRAMEWORKS:
            current, bits = (_FRAMEWORKS[found["framework"].lower()], found["version"]), None
        elif _TOP_HEADING.match(line):
            current, bits = None, None
        elif (heading := _BITS.match(line)) is not None:
            bits = heading["bits"]
        out.append((current, bits))
    return out


def _readme_default(pattern: re.Pattern[str], text: str) -> str | None:
    found = pattern.search(text)
    return found["v"] if found else None


@contract_errors_as_parse_errors(NAME)
def parse_readme(body: bytes, url: str) -> list[HarnessFigure]:
    """One figure per non-empty timing cell (ms per step, eval or train), its GPU as written (the enrich
    stage resolves it with ``ALIASES``)."""
    text = decode_text(body, NAME, url)
    lines = text.splitlines()
    section_of = _sections(lines)
    stated: dict[tuple[str, str], int] = {}
    for line, (section, _) in zip(lines, section_of, strict=True):
        found = _BATCH.search(line)
        if found and section is not None:
            stated.setdefault(section, int(found["batch"]))
    default_batch = next(iter(stated.values()), None)
    default_cuda = _readme_default(_DEFAULT_CUDA, text)
    default_cudnn = _readme_default(_DEFAULT_CUDNN, text)
    figures = []
    for start, header, rows in markdown_tables(text):
        matched = [_COLUMN.match(h.strip()) for h in header[1:]]
        columns = [m for m in matched if m is not None]
        if header[0].strip().lower() != "model" or not columns or len(columns) != len(matched):
            continue
        section, bits = section_of[start]
        if section is None or bits is None:
            raise ParseError(NAME, url, f"line {start + 1}: timing table outside a framework and precision section")
        framework, version = section
        batch = stated.get(section, default_batch)
        if batch is None:
            raise ParseError(NAME, url, "no batch size stated")
        precision: Literal["fp16", "fp32"] = "fp16" if bits == "16" else "fp32"
        for number, cells in enumerate(rows, start=1):
            where = f"{framework} {version} {bits}-bit row {number}"
            if len(cells) != len(header):
                raise ParseError(NAME, url, f"{where}: {len(cells)} cells, expected {len(header)}")
            device, cuda, cudnn = split_gpu_cell(cells[0])
            if not device:
                raise ParseError(NAME, url, f"{where}: no GPU named")
            for column, cell in zip(columns, cells[1:], strict=True):
                if not cell.strip():
                    continue  # not run
                ms = _MS.match(cell.strip())
                if not ms:
                    raise ParseError(NAME, url, f"{where}: not a time in ms: {cell!r}")
                figures.append(
                    HarnessFigure(
                        harness=NAME, device=device, resolve_as=device,
                        workload=column["workload"], mode="train" if column["mode"] == "train" else "inference",
                        precision=precision, metric="ms_per_iter",
                        value=positive_number(ms["ms"], where, NAME, url), batch_size=batch,
                        batch_basis="stated" if section in stated else "default", framework=framework,
                        framework_version=version, cuda=cuda or default_cuda, cudnn=cudnn or default_cudnn,
                        series=f"{framework} {version}", run=f"{framework} {version} {bits}-bit: {cells[0]}",
                    )
                )
    if not figures:
        raise ParseError(NAME, url, "no timing tables (Model | <network> eval | <network> train ...)")
    return figures


def _fetch(ctx: FetchContext) -> SourceFetch:
    return fetch_pages(ctx, NAME, [URL])


def _parse(page: FetchedPage) -> ParsedSource:
    return ParsedSource(NAME, "benchmark", records=list(parse_readme(page.body, page.url)))


def _replay(fixtures: Path) -> Iterator[Recording]:
    yield recording(
        NAME, URL, fixtures / FIXTURE_DIR / FIXTURE_FILE, COMMIT_DATE,
        f"{REPO}@{COMMIT}:README.md ({COMMIT_DATE.isoformat()})", "text/plain; charset=utf-8",
    )


SOURCE = Source(
    # A default source since its figures are stored and combined (docs/performance.md).
    default=True,
    name=NAME,
    kind="benchmark",
    export_kind="perf",
    attribution="deep-learning-benchmark by Yusaku Sako (github.com/u39kun/deep-learning-benchmark)",
    licence="no licence stated (figures cited with attribution)",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    fixtures=(FIXTURE_DIR,),
    as_of=COMMIT_DATE,
    harness=Harness(anchors=ANCHORS, aliases=ALIASES),
)
