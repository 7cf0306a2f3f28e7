"""Harness figures in the warehouse: stored as published with their reasons, combined into perf,
perf_workload and perf_scaling, and perf_best picking the combined figure (real DuckDB)."""

from datetime import datetime, timezone

import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.records import PerfFigure
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from gpuvalue.scrapers import registry
from gpuvalue.warehouse.harness import NOT_IN_CATALOG, combine_and_store, load_harness

REF = "GeForce RTX 3090"
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)

BENCHMARKS = registry.names(kind="benchmark")  # as the flow passes them


def fig(model, ms, *, harness="gpu-insights", workload="resnet50", gpus=1, excluded=None, device=None):
    return HarnessFigure(
        harness=harness, device=device or model or "?", model=model, excluded=excluded, workload=workload,
        mode="train", precision="fp16", metric="ms_per_iter", value=ms, batch_size=12, batch_basis="stated",
        gpu_count=gpus, framework="pytorch", run=f"{model}-{gpus}", cuda="12.1",
    )


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    for model, vendor in ((REF, "NVIDIA"), ("TITAN RTX", "NVIDIA"), ("L40S", "NVIDIA")):
        c.execute("INSERT INTO gpus (model, vendor) VALUES (?, ?)", [model, vendor])
    yield c
    c.close()


def test_figures_are_stored_as_published_with_their_reasons(con):
    n = load_harness(con, "gpu-insights", [
        fig(REF, 40.0), fig("L40S", 20.0),
        fig("GeForce RTX 5060 Mobile", 30.0, excluded="laptop part"),
        fig("Mystery X1", 10.0),  # a model the catalog does not hold
    ], NOW)
    assert n == 4
    rows = dict(con.execute("SELECT model, excluded FROM harness_figures").fetchall())
    assert rows["GeForce RTX 5060 Mobile"] == "laptop part" and rows["Mystery X1"] == NOT_IN_CATALOG
    assert rows["L40S"] is None
    cuda, batch, basis = con.execute(
        "SELECT cuda, batch_size, batch_basis FROM harness_figures WHERE model = 'L40S'").fetchone()
    assert (cuda, batch, basis) == ("12.1", 12, "stated")


def test_combining_writes_each_harness_and_the_combined_figure_and_perf_best_picks_it(con):
    with load.transaction(con):
        load.replace_perf(con, "lambda-pytorch-2024", [
            PerfFigure(model=m, precision="fp16", relative_perf=v, source="lambda-pytorch-2024", method="measured",
                       reference=REF, measured=True, workloads=10) for m, v in ((REF, 1.0), ("TITAN RTX", 0.64))
        ], NOW)
    load_harness(con, "gpu-insights", [fig(REF, 40.0), fig("TITAN RTX", 50.0), fig("L40S", 20.0),
                                        fig(REF, 50.0, gpus=2)], NOW)
    load_harness(con, "pytorch-gpu-benchmark", [
        fig(REF, 40.0, harness="pytorch-gpu-benchmark", workload=f"net{i}") for i in range(20)] + [
        fig("TITAN RTX", 40.0, harness="pytorch-gpu-benchmark", workload=f"net{i}") for i in range(20)], NOW)
    result = combine_and_store(con, NOW, benchmark_sources=BENCHMARKS)
    assert result is not None
    best = {m: (s, round(v, 4)) for m, s, v in con.execute(
        "SELECT model, source, relative_perf FROM perf_best WHERE precision = 'fp16' AND measured").fetchall()}
    assert best["L40S"] == ("gpu-insights", 2.0)
    # TITAN RTX: Lambda 0.64, gpu-insights 0.8, lamikr 1.0 (20 workloads) -> geomean of the three.
    assert best["TITAN RTX"] == ("combined", round((0.64 * 0.8 * 1.0) ** (1 / 3), 4))
    parts = con.execute("SELECT count(*) FROM perf_workload WHERE source = 'combined' AND model = 'TITAN RTX'"
                        ).fetchone()[0]
    assert parts == 1 + 20  # Lambda's figure came without ratios here; the harnesses' did
    assert con.execute("SELECT efficiency FROM perf_scaling WHERE source = 'gpu-insights'").fetchone()[0] == \
        pytest.approx(0.8)
    # Combining again with a harness gone leaves none of its rows behind.
    con.execute("DELETE FROM harness_figures WHERE harness = 'pytorch-gpu-benchmark'")
    combine_and_store(con, NOW, benchmark_sources=BENCHMARKS)
    assert con.execute("SELECT count(*) FROM perf WHERE source = 'pytorch-gpu-benchmark'").fetchone()[0] == 0
    con.execute("DELETE FROM harness_figures")
    assert combine_and_store(con, NOW, benchmark_sources=BENCHMARKS) is None
    assert con.execute("SELECT count(*) FROM perf WHERE source IN ('combined', 'gpu-insights')").fetchone()[0] == 0
    assert con.execute("SELECT count(*) FROM perf WHERE source = 'lambda-pytorch-2024'").fetchone()[0] == 2
