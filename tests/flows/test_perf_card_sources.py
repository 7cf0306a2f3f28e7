"""`gpuvalue perf MODEL` lists every source's figure of the card (the ranked one first, its method
saying how it was made) and the harness runs that give it no figure, with why."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.records import PerfFigure
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from gpuvalue.scrapers import registry
from gpuvalue.warehouse.harness import combine_and_store, load_harness
from gpuvalue.warehouse.perf_weighted import weigh_and_store

runner = CliRunner()
REF = "GeForce RTX 3090"
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)

BENCHMARKS = registry.names(kind="benchmark")  # as the flow passes them


def fig(model, ms, *, harness="gpu-insights", batch=12, excluded=None, device=None, rocm=None):
    return HarnessFigure(harness=harness, device=device or model, model=model, excluded=excluded, workload="resnet50",
                         mode="train", precision="fp16", metric="ms_per_iter", value=ms, batch_size=batch,
                         batch_basis="stated", framework="pytorch", run=f"{device or model}-{batch}", rocm=rocm)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sources") / "gpuvalue.duckdb"
    con = open_database(path)
    for model, vendor in ((REF, "NVIDIA"), ("TITAN RTX", "NVIDIA"), ("Radeon RX 7800 XT", "AMD"),
                          ("Radeon RX 7700S", "AMD")):
        con.execute("INSERT INTO gpus (model, vendor) VALUES (?, ?)", [model, vendor])
    with load.transaction(con):
        load.replace_perf(con, "lambda-pytorch-2024", [
            PerfFigure(model=m, precision="fp16", relative_perf=v, source="lambda-pytorch-2024", method="measured: x",
                       reference=REF, measured=True, workloads=10) for m, v in ((REF, 1.0), ("TITAN RTX", 0.75))], NOW)
        load.replace_perf(con, "estimate", [
            PerfFigure(model=m, precision="fp16", relative_perf=v, source="estimate", method="estimate: roofline v3",
                       reference=REF, measured=False, uncertainty=0.065)
            for m, v in ((REF, 0.97), ("TITAN RTX", 0.78), ("Radeon RX 7800 XT", 0.64))], NOW)
    load_harness(con, "pytorch-gpu-benchmark", [
        fig(REF, 40.0, harness="pytorch-gpu-benchmark"), fig("TITAN RTX", 50.0, harness="pytorch-gpu-benchmark"),
        fig("Radeon RX 7800 XT", 15.0, harness="pytorch-gpu-benchmark", batch=4, rocm="6.1"),
        fig("Radeon RX 7800 XT", 30.0, harness="pytorch-gpu-benchmark", device="AMD_Radeon_RX_7800_XT_laptop_twin",
            excluded="laptop part")], NOW)
    combine_and_store(con, NOW, benchmark_sources=BENCHMARKS)
    weigh_and_store(con, {}, REF, NOW)  # as the estimate stage ends: the shown figures weigh every source
    con.close()
    return path


def test_a_card_lists_every_source_and_how_the_ranked_figure_was_made(db):
    res = runner.invoke(app, ["perf", "TITAN RTX", "--db", str(db)], terminal_width=400)
    assert res.exit_code == 0, res.output
    text = res.output
    assert "TITAN RTX, fp16: every figure" in text
    for source in ("weighted", "combined", "lambda-pytorch-2024", "pytorch-gpu-benchmark", "estimate"):
        assert source in text
    assert "geomean of lambda-pytorch-2024 (10 workloads) and pytorch-gpu-benchmark" in text
    ranked_line = next(line for line in text.splitlines() if "ranked" in line)
    assert "weighted" in ranked_line  # every source and the held-out estimate, by reliability
    assert "80% range" in text


def test_a_card_whose_runs_give_no_figure_says_why(db):
    res = runner.invoke(app, ["perf", "RX 7800 XT", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 0, res.output
    assert "harness runs that give it no fp16 figure" in res.output
    assert "batch 4" in res.output and "kept out: laptop part" in res.output


def test_json_and_the_plain_listing_are_unchanged(db):
    res = runner.invoke(app, ["perf", "TITAN RTX", "--db", str(db), "--json"])
    (row,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert row["source"] == "weighted" and "every figure" not in res.stdout
    assert row["perf_low"] < row["relative_perf"] < row["perf_high"]
    res = runner.invoke(app, ["perf", "--db", str(db), "--all"], terminal_width=250)
    assert "every figure" not in res.output


def test_every_figure_is_on_the_scale_of_the_configured_reference(db, monkeypatch):
    """With GPUVALUE_REFERENCE_GPU set to another card, the table above said 1.000 for it and the
    'every figure' table below still gave its figure against the stored reference."""
    monkeypatch.setenv("GPUVALUE_REFERENCE_GPU", "TITAN RTX")
    res = runner.invoke(app, ["perf", "TITAN RTX", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 0, res.output
    assert "TITAN RTX, fp16: every figure, relative to TITAN RTX" in res.output
    ranked = next(line for line in res.output.splitlines() if "ranked" in line)
    assert "│ 1.000 " in ranked  # its ranked figure, on its own scale
