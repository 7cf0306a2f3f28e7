"""Lambda's published deep-learning training benchmarks (CSV tables on GitHub).

These are the only public training-throughput tables that cover consumer, workstation
and datacenter cards under one harness, which is what a speed-per-dollar ranking needs.
Files are pinned to a commit so a figure can always be traced to the bytes behind it.
"""

from __future__ import annotations

from collections.abc import Iterator
from importlib import resources
from pathlib import Path
from typing import Any, Protocol

from gpuvalue.models.lambda_tables import (  # noqa: F401  (the tables' facts, re-exported for their callers)
    PYTORCH_REPO as _PYTORCH_REPO,
    PYTORCH_COMMIT as _PYTORCH_COMMIT,
    TF_REPO as _TF_REPO,
    TF_COMMIT as _TF_COMMIT,
    PYTORCH_V1_FP16_COMMIT as _PYTORCH_V1_FP16_COMMIT,
    PYTORCH_V1_FP32_COMMIT as _PYTORCH_V1_FP32_COMMIT,
    PYTORCH_2021MID_FP16_COMMIT as _PYTORCH_2021MID_FP16_COMMIT,
    PYTORCH_2021MID_FP32_COMMIT as _PYTORCH_2021MID_FP32_COMMIT,
    LAMBDA_BATCHSIZE_FILES,
    LAMBDA_FILES,
    LambdaFile,
    LambdaRow,
    LambdaTableError,
    parse_lambda_rows,
)
from gpuvalue.models.records import FetchedPage, Precision
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import FetchContext, Recording, Source, at_midnight_utc, get_page, page_from_file

NAME = "lambda"


def parse_lambda_csv(body: bytes, url: str) -> list[LambdaRow]:
    """Rows of one Lambda benchmark table (models/lambda_tables.py), a table of another shape being
    the source's ParseError."""
    try:
        return parse_lambda_rows(body, url)
    except LambdaTableError as exc:
        raise ParseError(NAME, url, exc.what) from None


class PageGetter(Protocol):
    """What fetching the tables needs of a client: the project's HTTP client and its replay both fit."""

    def get(self, url: str, *, source: str) -> FetchedPage: ...


def fetch_lambda_tables(client: PageGetter) -> list[tuple[str, Precision, list[LambdaRow]]]:
    """Every pinned table (``LAMBDA_FILES``) fetched through ``client`` and parsed, as the
    ``(key, precision, rows)`` triples ``models.perf.measured.relative_perf_from_lambda`` takes."""
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
