"""cnn-benchmarks (Justin Johnson, 2016-17): Torch7 CNN timings on Pascal and Maxwell cards.

Old cards, but measured under one harness with cuDNN releases named: it gives the GTX 1080, TITAN X
Pascal and Maxwell GTX TITAN X a measured link to the GTX 1080 Ti, which newer tables share.

The README has one table per network under a "## <network>" heading ("(input 16 x 3 x 224 x 224)"
below it): GPU, cuDNN, Forward (ms), Backward (ms), Total (ms) per minibatch of 16. A figure is
the Total (one forward and backward pass, FP32), the training step the harness timed. Rows with
cuDNN "None" ran Torch's own nn kernels: a variant run, kept out of the ranking. The CPU row is
not a GPU. The raw per-run JSON files (``outputs/``) are not read: the README's tables are their
summary, with the cuDNN release named per row.

There is no RTX 3090 here: ratios are against the TITAN X Pascal, the card in every table, within
one cuDNN release (major.minor), so the series is the cuDNN release. "Pascal Titan X" is the 2016
TITAN X Pascal (the README's GPU table: 3584 cores, August 2016), not the 2017 TITAN Xp.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

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

NAME = "cnn-benchmarks"
REPO = "jcjohnson/cnn-benchmarks"
COMMIT = "83d441f852134f4a98aa3e665499d9369b6141c9"
COMMIT_DATE = date(2017, 9, 25)
URL = raw_github_url(REPO, COMMIT, "README.md")
FIXTURE_DIR = "perf/harnesses/cnn-benchmarks_jcjohnson"
FIXTURE_FILE = "README_source.md"
ANCHORS: tuple[str, ...] = ("TITAN X Pascal",)

ALIASES: dict[str, Resolution] = {
    device_key(k): v
    for k, v in {
        "GTX 1080 Ti": ("GeForce GTX 1080 Ti", None),
        "GTX 1080": ("GeForce GTX 1080", None),
        "Pascal Titan X": ("TITAN X Pascal", None),
        "Maxwell Titan X": ("GeForce GTX TITAN X", None),
        "CPU: Dual Xeon E5-2630 v3": (None, "not a GPU (CPU)"),
    }.items()
}
# The README's prose: the GTX 1080, Maxwell and Pascal Titan X ran the CUDA 8.0 release candidate,
# the GTX 1080 Ti the CUDA 8.0 release (by the device as written, ``device_key``).
_CUDA = {device_key(k): v for k, v in {"GTX 1080 Ti": "8.0", "GTX 1080": "8.0 RC", "Pascal Titan X": "8.0 RC",
                                         "Maxwell Titan X": "8.0 RC"}.items()}

_HEADER = ("gpu", "cudnn", "forward (ms)", "backward (ms)", "total (ms)")
_HEADING = re.compile(r"^##\s+(?P<name>[^#].*?)\s*$")
_INPUT = re.compile(r"\(input\s+(?P<batch>\d+)\s*x\s*3\s*x\s*\d+\s*x\s*\d+\)", re.IGNORECASE)
_BATCH_SENTENCE = re.compile(r"minibatch size of (?P<batch>\d+)", re.IGNORECASE)
_CUDNN = re.compile(r"^(?P<major>\d+)\.(?P<minor>\d+)(?:\.\d+)*$")


def workload_name(heading: str) -> str:
    """'VGG-16' -> 'vgg16', 'ResNet-200' -> 'resnet200', 'Inception-V1' -> 'inception_v1'."""
    name = re.sub(r"-(?=\d)", "", heading.strip().lower())
    return re.sub(r"[^a-z0-9]+", "_", name).strip("_")


@contract_errors_as_parse_errors(NAME)
def parse_readme(body: bytes, url: str) -> list[HarnessFigure]:
    """One training figure (ms per minibatch) per timing-table row, its GPU as written (the enrich stage
    resolves it with ``ALIASES``)."""
    text = decode_text(body, NAME, url)
    lines = text.splitlines()
    overall = _BATCH_SENTENCE.search(text)
    figures = []
    for start, header, rows in markdown_tables(text):
        if tuple(h.lower() for h in header) != _HEADER:
            continue
        heading, batch = None, None
        for line in reversed(lines[:start]):
            found = _INPUT.search(line)
            if found and batch is None:
                batch = int(found["batch"])
            heading_match = _HEADING.match(line)
            if heading_match:
                heading = heading_match["name"]
                break
        if heading is None:
            raise ParseError(NAME, url, f"line {start + 1}: timing table without a network heading")
        if batch is None and overall:
            batch = int(overall["batch"])
        if not batch:
            raise ParseError(NAME, url, f"{heading}: no batch size stated")
        workload = workload_name(heading)
        for number, cells in enumerate(rows, start=1):
            where = f"{heading} row {number}"
            if len(cells) != len(_HEADER):
                raise ParseError(NAME, url, f"{where}: {len(cells)} cells, expected {len(_HEADER)}")
            gpu, cudnn = cells[0], cells[1]
            if not gpu:
                raise ParseError(NAME, url, f"{where}: no GPU named")
            total = positive_number(cells[4], f"{where} total", NAME, url)
            excluded = None
            release = _CUDNN.match(cudnn)
            if release:
                series = f"cudnn {release['major']}.{release['minor']}"
            elif cudnn.lower() == "none":
                series = "no cudnn"
                excluded = excluded or "variant run (no cuDNN: Torch nn kernels)"
            else:
                raise ParseError(NAME, url, f"{where}: cuDNN is not a version or None: {cudnn!r}")
            figures.append(
                HarnessFigure(
                    harness=NAME, device=gpu, resolve_as=gpu, excluded=excluded, workload=workload, mode="train",
                    precision="fp32", metric="ms_per_iter", value=total, batch_size=batch, batch_basis="stated",
                    framework="torch7", cuda=_CUDA.get(device_key(gpu)),
                    cudnn=cudnn if release else None, series=series, run=f"{heading}: {gpu}, cuDNN {cudnn}",
                )
            )
    if not figures:
        raise ParseError(NAME, url, "no timing tables (GPU | cuDNN | Forward | Backward | Total)")
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
    attribution="cnn-benchmarks by Justin Johnson (github.com/jcjohnson/cnn-benchmarks)",
    licence="MIT",
    fetch=_fetch,
    parse=_parse,
    replay=_replay,
    fixtures=(FIXTURE_DIR,),
    as_of=COMMIT_DATE,
    harness=Harness(anchors=ANCHORS, aliases=ALIASES),
)
