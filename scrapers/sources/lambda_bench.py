"""Lambda's published deep-learning training benchmarks (CSV tables on GitHub).

These are the only public training-throughput tables that cover consumer, workstation
and datacenter cards under one harness, which is what a speed-per-dollar ranking needs.
Files are pinned to a commit so a figure can always be traced to the bytes behind it.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import date
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from gpuvalue.models.records import FetchedPage, Precision, Record
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "lambda"

_PYTORCH_REPO = "lambdal/deeplearning-benchmark"
_PYTORCH_COMMIT = "aa5addb6a53675a649a80036dad548f1c27cbcc4"
_TF_REPO = "LambdaColdStorage/lambda-tensorflow-benchmark"
_TF_COMMIT = "e086e0e7d88a19991642d0774793693d4b7cbe46"
_PYTORCH_DATE = date(2024, 7, 24)  # last change of the pinned files
# Lambda's first PyTorch tables, at the repository root before the results moved under
# pytorch/; the fp16 and fp32 tables were last changed in different commits.
_PYTORCH_V1_FP16_COMMIT = "000bc82d31cbad9fc52fa3c1dadce9a4034790f9"
_PYTORCH_V1_FP32_COMMIT = "84fd0478d071ef3f572c2024ab71f6baee4fd839"
# The newest run behind these tables (the RTX 3090's, in the repository's results folder) is
# dated 2021-02-05; the commit dates themselves are not recorded here.
_PYTORCH_V1_DATE = date(2021, 2, 5)
# The same tables in mid-2021, after four more cards were added (RTX 3070, RTX A5000, RTX A4000,
# A40); again the fp16 and fp32 files were last stored at different commits. Newest run behind
# them: the RTX A4000's re-runs of 2021-06-28.
_PYTORCH_2021MID_FP16_COMMIT = "b177e19c7405fd9b1d562363f53538081972973c"
_PYTORCH_2021MID_FP32_COMMIT = "71b30158fb0b46ff392ab7157d2035823dfc6a30"
_PYTORCH_2021MID_DATE = date(2021, 6, 28)
_TF_DATE = date(2021, 10, 30)


def _raw_url(repo: str, commit: str, path: str) -> str:
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


@dataclass(frozen=True)
class LambdaFile:
    """Where one benchmark table lives and what it measures."""

    key: str  # also the PerfFigure source, e.g. "lambda-pytorch-2024-fp16"
    precision: Precision
    framework: str  # "pytorch" or "tensorflow"
    year: int
    url: str
    content_date: date  # when the file last changed upstream
    kind: str = "throughput"  # "throughput" or "batchsize" (same table shape)


LAMBDA_FILES: list[LambdaFile] = [
    LambdaFile(
        "lambda-pytorch-2024-fp16",
        "fp16",
        "pytorch",
        2024,
        _raw_url(_PYTORCH_REPO, _PYTORCH_COMMIT, "pytorch/pytorch-train-throughput-fp16.csv"),
        _PYTORCH_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-2024-fp32",
        "fp32",
        "pytorch",
        2024,
        _raw_url(_PYTORCH_REPO, _PYTORCH_COMMIT, "pytorch/pytorch-train-throughput-fp32.csv"),
        _PYTORCH_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-v1-fp16",
        "fp16",
        "pytorch",
        2021,
        _raw_url(_PYTORCH_REPO, _PYTORCH_V1_FP16_COMMIT, "pytorch-train-throughput-fp16.csv"),
        _PYTORCH_V1_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-v1-fp32",
        "fp32",
        "pytorch",
        2021,
        _raw_url(_PYTORCH_REPO, _PYTORCH_V1_FP32_COMMIT, "pytorch-train-throughput-fp32.csv"),
        _PYTORCH_V1_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-2021mid-fp16",
        "fp16",
        "pytorch",
        2021,
        _raw_url(_PYTORCH_REPO, _PYTORCH_2021MID_FP16_COMMIT, "pytorch/pytorch-train-throughput-fp16.csv"),
        _PYTORCH_2021MID_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-2021mid-fp32",
        "fp32",
        "pytorch",
        2021,
        _raw_url(_PYTORCH_REPO, _PYTORCH_2021MID_FP32_COMMIT, "pytorch/pytorch-train-throughput-fp32.csv"),
        _PYTORCH_2021MID_DATE,
    ),
    LambdaFile(
        "lambda-tf-2021-fp16",
        "fp16",
        "tensorflow",
        2021,
        _raw_url(_TF_REPO, _TF_COMMIT, "tf-train-throughput-fp16.csv"),
        _TF_DATE,
    ),
    LambdaFile(
        "lambda-tf-2021-fp32",
        "fp32",
        "tensorflow",
        2021,
        _raw_url(_TF_REPO, _TF_COMMIT, "tf-train-throughput-fp32.csv"),
        _TF_DATE,
    ),
]

# The batch sizes behind each throughput cell; same shape, kept for reference only.
LAMBDA_BATCHSIZE_FILES: list[LambdaFile] = [
    LambdaFile(
        "lambda-pytorch-2024-fp16-bs",
        "fp16",
        "pytorch",
        2024,
        _raw_url(_PYTORCH_REPO, _PYTORCH_COMMIT, "pytorch/pytorch-train-bs-fp16.csv"),
        _PYTORCH_DATE,
        "batchsize",
    ),
    LambdaFile(
        "lambda-pytorch-2024-fp32-bs",
        "fp32",
        "pytorch",
        2024,
        _raw_url(_PYTORCH_REPO, _PYTORCH_COMMIT, "pytorch/pytorch-train-bs-fp32.csv"),
        _PYTORCH_DATE,
        "batchsize",
    ),
    LambdaFile(
        "lambda-tf-2021-fp16-bs",
        "fp16",
        "tensorflow",
        2021,
        _raw_url(_TF_REPO, _TF_COMMIT, "tf-train-bs-fp16.csv"),
        _TF_DATE,
        "batchsize",
    ),
    LambdaFile(
        "lambda-tf-2021-fp32-bs",
        "fp32",
        "tensorflow",
        2021,
        _raw_url(_TF_REPO, _TF_COMMIT, "tf-train-bs-fp32.csv"),
        _TF_DATE,
        "batchsize",
    ),
]


class LambdaRow(Record):
    """One configuration of a Lambda table. Multi-GPU rows are whole-system totals;
    ``list_price`` is Lambda's own list price summed over the GPUs, not a market price."""

    name_gpu: str
    num_gpu: int
    watt: float | None
    list_price: float | None
    throughputs: dict[str, float]  # workload -> items/s; workloads not run are absent


_FIXED_COLUMNS = ("name_gpu", "num_gpu", "watt", "price")
# Lambda's first PyTorch tables have no watt and price columns: workloads follow num_gpu.
_FIXED_COLUMNS_V1 = ("name_gpu", "num_gpu")


def _number(text: str, what: str, url: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ParseError(NAME, url, f"{what}: not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise ParseError(NAME, url, f"{what}: not a usable number: {text!r}")
    return value


def _optional_number(text: str, what: str, url: str) -> float | None:
    return None if text.strip() == "" else _number(text, what, url)


def parse_lambda_csv(body: bytes, url: str) -> list[LambdaRow]:
    """Rows of one Lambda benchmark table; ``0.0`` cells mean "not run" and are dropped."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParseError(NAME, url, "not UTF-8 text") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise ParseError(NAME, url, f"not CSV: {exc}") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise ParseError(NAME, url, "empty table")
    header = [h.strip() for h in rows[0]]
    fixed = len(_FIXED_COLUMNS) if tuple(header[:4]) == _FIXED_COLUMNS else len(_FIXED_COLUMNS_V1)
    if tuple(header[:2]) != _FIXED_COLUMNS_V1 or {"watt", "price"} & set(header[fixed:]) or len(header) <= fixed:
        raise ParseError(NAME, url, f"unexpected header {header[:6]!r}")
    workloads = header[fixed:]
    if len(set(workloads)) != len(workloads) or any(not w for w in workloads):
        raise ParseError(NAME, url, "duplicate or empty workload column")
    if len(rows) < 2:
        raise ParseError(NAME, url, "no data rows")

    parsed: list[LambdaRow] = []
    for line_no, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(header):
            raise ParseError(NAME, url, f"line {line_no}: {len(cells)} cells, expected {len(header)}")
        name = cells[0].strip()
        if not name:
            raise ParseError(NAME, url, f"line {line_no}: empty GPU name")
        gpus = _number(cells[1], f"line {line_no} num_gpu", url)
        if gpus < 1 or gpus != int(gpus):
            raise ParseError(NAME, url, f"line {line_no}: num_gpu {cells[1]!r} is not a whole count")
        throughputs = {}
        for workload, cell in zip(workloads, cells[fixed:], strict=True):
            value = _optional_number(cell, f"line {line_no} {workload}", url)
            if value:  # 0.0 and empty: the workload was not run on this configuration
                throughputs[workload] = value
        with_costs = fixed == len(_FIXED_COLUMNS)
        parsed.append(
            LambdaRow(
                name_gpu=name,
                num_gpu=int(gpus),
                watt=_optional_number(cells[2], f"line {line_no} watt", url) if with_costs else None,
                list_price=_optional_number(cells[3], f"line {line_no} price", url) if with_costs else None,
                throughputs=throughputs,
            )
        )
    return parsed


class PageGetter(Protocol):
    """What fetching the tables needs of a client: the project's HTTP client and its replay both fit."""

    def get(self, url: str, *, source: str) -> FetchedPage: ...


def fetch_lambda_tables(client: PageGetter) -> list[tuple[str, Precision, list[LambdaRow]]]:
    """Every pinned table (``LAMBDA_FILES``) fetched through ``client`` and parsed, as the
    ``(key, precision, rows)`` triples ``models.perf_measured.relative_perf_from_lambda`` takes."""
    return [(f.key, f.precision, parse_lambda_csv(client.get(f.url, source="lambda").body, f.url))
            for f in LAMBDA_FILES]


# ---- the source ------------------------------------------------------------------------------

# Where each recorded table was saved (a fixtures path, or "package:" for the copies shipped in
# models/data) and its provenance.
_RECORDED = {
    "lambda-pytorch-2024-fp16": ("perf/lambda_dlb_pytorch_2024_train_throughput_fp16.csv", f"{_PYTORCH_REPO}@{_PYTORCH_COMMIT}:pytorch/pytorch-train-throughput-fp16.csv (2024-07-24)"),
    "lambda-pytorch-2024-fp32": ("perf/lambda_dlb_pytorch_2024_train_throughput_fp32.csv", f"{_PYTORCH_REPO}@{_PYTORCH_COMMIT}:pytorch/pytorch-train-throughput-fp32.csv (2024-07-24)"),
    "lambda-pytorch-v1-fp16": ("package:lambda_pytorch_v1_train_throughput_fp16.csv", f"{_PYTORCH_REPO}@{_PYTORCH_V1_FP16_COMMIT}:pytorch-train-throughput-fp16.csv (newest run 2021-02-05)"),
    "lambda-pytorch-v1-fp32": ("package:lambda_pytorch_v1_train_throughput_fp32.csv", f"{_PYTORCH_REPO}@{_PYTORCH_V1_FP32_COMMIT}:pytorch-train-throughput-fp32.csv (newest run 2021-02-05)"),
    "lambda-pytorch-2021mid-fp16": ("package:lambda_pytorch_2021mid_train_throughput_fp16.csv", f"{_PYTORCH_REPO}@{_PYTORCH_2021MID_FP16_COMMIT}:pytorch/pytorch-train-throughput-fp16.csv (newest run 2021-06-28)"),
    "lambda-pytorch-2021mid-fp32": ("package:lambda_pytorch_2021mid_train_throughput_fp32.csv", f"{_PYTORCH_REPO}@{_PYTORCH_2021MID_FP32_COMMIT}:pytorch/pytorch-train-throughput-fp32.csv (newest run 2021-06-28)"),
    "lambda-tf-2021-fp16": ("perf/lambda_tf_2021_train_throughput_fp16.csv", f"{_TF_REPO}@{_TF_COMMIT}:tf-train-throughput-fp16.csv (2021-10-30)"),
    "lambda-tf-2021-fp32": ("perf/lambda_tf_2021_train_throughput_fp32.csv", f"{_TF_REPO}@{_TF_COMMIT}:tf-train-throughput-fp32.csv (2021-10-30)"),
}


def _fetch(ctx: FetchContext) -> SourceFetch:
    out = SourceFetch(NAME)
    for f in LAMBDA_FILES:
        page = get_page(ctx, out, f.url)
        if page is not None:
            out.pages.append(page)
    return out


def _parse(page: FetchedPage) -> ParsedSource:
    for f in LAMBDA_FILES:
        if f.url == page.url:
            return ParsedSource(NAME, "benchmark", perf_tables=[(f.key, f.precision, parse_lambda_csv(page.body, page.url))])
    raise ParseError(NAME, page.url, "not one of the known Lambda benchmark files")


def _inspect(body: bytes, url: str) -> tuple[list[Any], list[str]]:
    return list(parse_lambda_csv(body, url)), []


def _replay(fixtures: Path) -> Iterator[Recording]:
    for f in LAMBDA_FILES:
        rel, provenance = _RECORDED[f.key]
        if rel.startswith("package:"):
            body = resources.files("gpuvalue.models").joinpath("data", rel.removeprefix("package:")).read_bytes()
        else:
            body = (fixtures / rel).read_bytes()
        yield Recording(page_from_file(NAME, body, f.url, at_midnight_utc(f.content_date), "text/plain; charset=utf-8"),
                        provenance)


SOURCE = Source(
    name=NAME,
    kind="benchmark",
    export_kind="perf",
    attribution="Training benchmarks: Lambda (lambdalabs.com GPU benchmarks)",
    licence="Lambda benchmark data; figures cited with attribution",
    fetch=_fetch,
    parse=_parse,
    inspect=_inspect,
    replay=_replay,
    sample_url="https://raw.githubusercontent.com/x/y/z.csv",
    fixtures=("perf/lambda_dlb_pytorch_2024_train_throughput_fp16.csv", "perf/lambda_tf_2021_train_throughput_fp32.csv"),
)
