"""Lambda's published training-benchmark tables: which files they are and what one row holds.

The tables are facts the performance model reasons about (their dates, frameworks and years order
and date its figures; the held-out checks read copies shipped in models/data), so they live here,
beside the model; ``scrapers/sources/lambda_bench.py`` fetches them and reports a table that does
not parse as the source's ParseError. Files are pinned to a commit so a figure can always be traced
to the bytes behind it.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from datetime import date

from gpuvalue.models.records import Precision, Record


class LambdaTableError(ValueError):
    """A Lambda table that does not have the published shape."""

    def __init__(self, url: str, what: str) -> None:
        self.url, self.what = url, what
        super().__init__(f"{url}: {what}")


PYTORCH_REPO = "lambdal/deeplearning-benchmark"
PYTORCH_COMMIT = "aa5addb6a53675a649a80036dad548f1c27cbcc4"
TF_REPO = "LambdaColdStorage/lambda-tensorflow-benchmark"
TF_COMMIT = "e086e0e7d88a19991642d0774793693d4b7cbe46"
PYTORCH_DATE = date(2024, 7, 24)  # last change of the pinned files
# Lambda's first PyTorch tables, at the repository root before the results moved under
# pytorch/; the fp16 and fp32 tables were last changed in different commits.
PYTORCH_V1_FP16_COMMIT = "000bc82d31cbad9fc52fa3c1dadce9a4034790f9"
PYTORCH_V1_FP32_COMMIT = "84fd0478d071ef3f572c2024ab71f6baee4fd839"
# The newest run behind these tables (the RTX 3090's, in the repository's results folder) is
# dated 2021-02-05; the commit dates themselves are not recorded here.
PYTORCH_V1_DATE = date(2021, 2, 5)
# The same tables in mid-2021, after four more cards were added (RTX 3070, RTX A5000, RTX A4000,
# A40); again the fp16 and fp32 files were last stored at different commits. Newest run behind
# them: the RTX A4000's re-runs of 2021-06-28.
PYTORCH_2021MID_FP16_COMMIT = "b177e19c7405fd9b1d562363f53538081972973c"
PYTORCH_2021MID_FP32_COMMIT = "71b30158fb0b46ff392ab7157d2035823dfc6a30"
PYTORCH_2021MID_DATE = date(2021, 6, 28)
TF_DATE = date(2021, 10, 30)


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
        _raw_url(PYTORCH_REPO, PYTORCH_COMMIT, "pytorch/pytorch-train-throughput-fp16.csv"),
        PYTORCH_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-2024-fp32",
        "fp32",
        "pytorch",
        2024,
        _raw_url(PYTORCH_REPO, PYTORCH_COMMIT, "pytorch/pytorch-train-throughput-fp32.csv"),
        PYTORCH_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-v1-fp16",
        "fp16",
        "pytorch",
        2021,
        _raw_url(PYTORCH_REPO, PYTORCH_V1_FP16_COMMIT, "pytorch-train-throughput-fp16.csv"),
        PYTORCH_V1_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-v1-fp32",
        "fp32",
        "pytorch",
        2021,
        _raw_url(PYTORCH_REPO, PYTORCH_V1_FP32_COMMIT, "pytorch-train-throughput-fp32.csv"),
        PYTORCH_V1_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-2021mid-fp16",
        "fp16",
        "pytorch",
        2021,
        _raw_url(PYTORCH_REPO, PYTORCH_2021MID_FP16_COMMIT, "pytorch/pytorch-train-throughput-fp16.csv"),
        PYTORCH_2021MID_DATE,
    ),
    LambdaFile(
        "lambda-pytorch-2021mid-fp32",
        "fp32",
        "pytorch",
        2021,
        _raw_url(PYTORCH_REPO, PYTORCH_2021MID_FP32_COMMIT, "pytorch/pytorch-train-throughput-fp32.csv"),
        PYTORCH_2021MID_DATE,
    ),
    LambdaFile(
        "lambda-tf-2021-fp16",
        "fp16",
        "tensorflow",
        2021,
        _raw_url(TF_REPO, TF_COMMIT, "tf-train-throughput-fp16.csv"),
        TF_DATE,
    ),
    LambdaFile(
        "lambda-tf-2021-fp32",
        "fp32",
        "tensorflow",
        2021,
        _raw_url(TF_REPO, TF_COMMIT, "tf-train-throughput-fp32.csv"),
        TF_DATE,
    ),
]

# The batch sizes behind each throughput cell; same shape, kept for reference only.
LAMBDA_BATCHSIZE_FILES: list[LambdaFile] = [
    LambdaFile(
        "lambda-pytorch-2024-fp16-bs",
        "fp16",
        "pytorch",
        2024,
        _raw_url(PYTORCH_REPO, PYTORCH_COMMIT, "pytorch/pytorch-train-bs-fp16.csv"),
        PYTORCH_DATE,
        "batchsize",
    ),
    LambdaFile(
        "lambda-pytorch-2024-fp32-bs",
        "fp32",
        "pytorch",
        2024,
        _raw_url(PYTORCH_REPO, PYTORCH_COMMIT, "pytorch/pytorch-train-bs-fp32.csv"),
        PYTORCH_DATE,
        "batchsize",
    ),
    LambdaFile(
        "lambda-tf-2021-fp16-bs",
        "fp16",
        "tensorflow",
        2021,
        _raw_url(TF_REPO, TF_COMMIT, "tf-train-bs-fp16.csv"),
        TF_DATE,
        "batchsize",
    ),
    LambdaFile(
        "lambda-tf-2021-fp32-bs",
        "fp32",
        "tensorflow",
        2021,
        _raw_url(TF_REPO, TF_COMMIT, "tf-train-bs-fp32.csv"),
        TF_DATE,
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
        raise LambdaTableError(url, f"{what}: not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise LambdaTableError(url, f"{what}: not a usable number: {text!r}")
    return value


def _optional_number(text: str, what: str, url: str) -> float | None:
    return None if text.strip() == "" else _number(text, what, url)


def parse_lambda_rows(body: bytes, url: str) -> list[LambdaRow]:
    """Rows of one Lambda benchmark table; ``0.0`` cells mean "not run" and are dropped."""
    try:
        text = body.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise LambdaTableError(url, "not UTF-8 text") from None
    try:
        rows = list(csv.reader(io.StringIO(text)))
    except csv.Error as exc:
        raise LambdaTableError(url, f"not CSV: {exc}") from None
    rows = [r for r in rows if any(cell.strip() for cell in r)]
    if not rows:
        raise LambdaTableError(url, "empty table")
    header = [h.strip() for h in rows[0]]
    fixed = len(_FIXED_COLUMNS) if tuple(header[:4]) == _FIXED_COLUMNS else len(_FIXED_COLUMNS_V1)
    if tuple(header[:2]) != _FIXED_COLUMNS_V1 or {"watt", "price"} & set(header[fixed:]) or len(header) <= fixed:
        raise LambdaTableError(url, f"unexpected header {header[:6]!r}")
    workloads = header[fixed:]
    if len(set(workloads)) != len(workloads) or any(not w for w in workloads):
        raise LambdaTableError(url, "duplicate or empty workload column")
    if len(rows) < 2:
        raise LambdaTableError(url, "no data rows")

    parsed: list[LambdaRow] = []
    for line_no, cells in enumerate(rows[1:], start=2):
        if len(cells) != len(header):
            raise LambdaTableError(url, f"line {line_no}: {len(cells)} cells, expected {len(header)}")
        name = cells[0].strip()
        if not name:
            raise LambdaTableError(url, f"line {line_no}: empty GPU name")
        gpus = _number(cells[1], f"line {line_no} num_gpu", url)
        if gpus < 1 or gpus != int(gpus):
            raise LambdaTableError(url, f"line {line_no}: num_gpu {cells[1]!r} is not a whole count")
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
