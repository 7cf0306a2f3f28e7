"""LLM inference figures (llama.cpp tokens/s): parsed from the real README tables, mapped to catalog
models, stored in perf_inference only, and shown by `gpuvalue perf --inference`, never ranked."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows import loaders
from gpuvalue.flows.cli import app
from gpuvalue.models.perf.inference import LLAMACPP_MODELS, inference_figures, llamacpp_name_to_model
from gpuvalue.models.records import InferenceFigure
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.models.source_batches import ParsedSource
from gpuvalue.scrapers.sources.llamacpp import CONTENT_DATE, LLAMACPP_SOURCE_KEY, WORKLOADS, parse_llamacpp_readme
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database

README = Path(__file__).resolve().parents[1] / "fixtures" / "perf" / "xiongjiedai_llamacpp_llama3_tokens_per_s_2024.md"
runner = CliRunner()
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def cells():
    return parse_llamacpp_readme(README.read_bytes())


def _cell(cells, gpu: str, count: int, workload: str, phase: str):
    found = [c.tokens_per_s for c in cells
             if (c.gpu, c.gpu_count, c.workload, c.phase) == (gpu, count, workload, phase)]
    assert len(found) <= 1
    return found[0] if found else None


# ---- parser ----------------------------------------------------------------------------------

def test_parser_reads_exactly_the_two_overview_tables(cells):
    # 35 setups (16 single NVIDIA cards, 15 multi-card, 4 Apple) x 4 columns x 2 tables, less OOM cells.
    assert len(cells) == 200
    assert {c.phase for c in cells} == {"text-generation", "prompt-processing"}
    assert {c.workload for c in cells} == set(WORKLOADS.values())
    assert len({(c.gpu, c.gpu_count) for c in cells}) == 35
    # Values only the per-length tables hold (tg 512 and pp 512 of the 4090) were not read.
    assert not {130.58, 7138.99} & {c.tokens_per_s for c in cells}


@pytest.mark.parametrize(
    "gpu, count, workload, phase, expected",
    [
        ("4090 24GB", 1, "llama3-8b-q4_k_m", "text-generation", 127.74),
        ("H100 PCIe 80GB", 1, "llama3-8b-q4_k_m", "text-generation", 144.49),  # **144.49**
        ("H100 PCIe 80GB", 1, "llama3-8b-f16", "text-generation", 67.79),  # **67.79**
        ("A40 48GB", 1, "llama3-70b-q4_k_m", "prompt-processing", 239.92),
        ("H100 PCIe 80GB", 4, "llama3-8b-q4_k_m", "prompt-processing", 11560.23),  # bold, no padding
        ("4090 24GB", 8, "llama3-70b-q4_k_m", "prompt-processing", 1336.26),  # **1336.26**
        ("3090 24GB", 2, "llama3-70b-q4_k_m", "text-generation", 16.29),
        ("M1 7-Core GPU 8GB", 1, "llama3-8b-q4_k_m", "text-generation", 9.72),  # U+2011 read as "-"
        ("3070 8GB", 1, "llama3-8b-f16", "text-generation", None),  # OOM
        ("3070 8GB", 1, "llama3-8b-f16", "prompt-processing", None),  # OOM
        ("H100 PCIe 80GB", 1, "llama3-70b-f16", "text-generation", None),  # OOM
    ],
)
def test_parser_cells(cells, gpu, count, workload, phase, expected):
    assert _cell(cells, gpu, count, workload, phase) == expected


def test_multi_card_rows_are_kept_apart_and_no_single_nvidia_card_runs_70b_f16(cells):
    assert {c.gpu_count for c in cells} == {1, 2, 4, 6, 8}
    single_70b_f16 = {c.gpu for c in cells if c.workload == "llama3-70b-f16" and c.gpu_count == 1}
    assert single_70b_f16 == {"M2 Ultra 76-Core GPU 192GB"}  # 131 GB of weights fit only its 192 GB
    assert all("*" not in c.gpu and "\u2011" not in c.gpu for c in cells)


def _without(text: str, caption: str) -> str:
    return "\n".join(line for line in text.splitlines() if caption not in line)


@pytest.mark.parametrize(
    "body, message",
    [
        (b"# GPU-Benchmarks-on-LLM-Inference\n## Overview\n", "no text-generation overview table"),
        (_without(README.read_text(encoding="utf-8"), "prompt eval").encode(), "no prompt-processing overview table"),
        (README.read_bytes().replace(b"| 70B F16 |", b"| 70B Q8_0 |", 1), "columns"),
        (README.read_bytes().replace(b"| 106.40 ", b"| fast ", 1), "not a number"),
        (README.read_bytes().replace(b"| 106.40 ", b"| -3 ", 1), "not a usable speed"),
        (README.read_bytes().replace(b"| 106.40    |", b"", 1), "cells, expected 5"),
        (b"\xff\xfe" + README.read_bytes(), "not UTF-8"),
    ],
)
def test_parse_errors_say_what_is_wrong(body, message):
    with pytest.raises(ParseError, match=message) as info:
        parse_llamacpp_readme(body, "https://example.org/README.md")
    assert info.value.source == "llamacpp"


# ---- names -----------------------------------------------------------------------------------

def test_every_nvidia_name_maps_and_apple_chips_are_dropped_with_one_warning(cells):
    figures, warnings = inference_figures(cells, source="s", as_of=CONTENT_DATE)
    assert len(figures) == 178  # 200 less the 22 Apple cells
    assert {f.model for f in figures} == set(LLAMACPP_MODELS.values())
    assert len(warnings) == 1 and all(chip in warnings[0] for chip in ("M1 7-Core", "M2 Ultra", "M3 Max"))
    assert all(f.as_of == CONTENT_DATE and f.source == "s" for f in figures)


@pytest.mark.parametrize(
    "name, model",
    [("3080 10GB", "GeForce RTX 3080"), ("3080 Ti 12GB", "GeForce RTX 3080 Ti"), ("A40 48GB", "A40 PCIe"),
     ("A100 SXM 80GB", "A100 SXM4 80 GB"), ("RTX 6000 Ada 48GB", "RTX 6000 Ada Generation"),
     ("3080 12GB", None), ("M3 Max 40-Core GPU 64GB", None), ("4090", None)],
)
def test_names_are_looked_up_never_guessed(name, model):
    assert llamacpp_name_to_model(name) == model


@pytest.mark.e2e
def test_every_mapped_model_is_in_the_replay_catalog_with_the_memory_the_benchmark_names(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    memory = dict(con.execute("SELECT model, memory_gb FROM gpus").fetchall())
    con.close()
    for name, model in LLAMACPP_MODELS.items():
        assert model in memory, model
        stated = float(re.search(r"(\d+)gb$", name).group(1))
        assert memory[model] == stated, (name, model, memory[model])


# ---- warehouse -------------------------------------------------------------------------------

def _figure(model: str, tps: float, source: str = "bench-a", workload: str = "llama3-8b-q4_k_m",
            phase: str = "text-generation", gpu_count: int = 1) -> InferenceFigure:
    return InferenceFigure(model=model, source=source, workload=workload, phase=phase, tokens_per_s=tps,
                           gpu_count=gpu_count, as_of=date(2024, 5, 12))


@pytest.fixture
def con(tmp_path):
    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    c.execute("INSERT INTO gpus (model, vendor, released, provenance, updated_at) VALUES "
              "('Card A', 'NVIDIA', true, '{}', now()), ('Card B', 'NVIDIA', true, '{}', now())")
    yield c
    c.close()


def _rows(con) -> list[tuple]:
    return con.execute("SELECT model, source, gpu_count, tokens_per_s FROM perf_inference ORDER BY ALL").fetchall()


def test_a_load_replaces_its_sources_rows_and_leaves_other_sources_alone(con):
    with load.transaction(con):
        load.replace_perf_inference(con, "bench-a", [_figure("Card A", 100.0), _figure("Card B", 50.0),
                                                     _figure("Card B", 90.0, gpu_count=2)], NOW)
        load.replace_perf_inference(con, "bench-b", [_figure("Card A", 7.0, source="bench-b")], NOW)
    with load.transaction(con):
        assert load.replace_perf_inference(con, "bench-a", [_figure("Card A", 110.0)], NOW) == 1
    assert _rows(con) == [("Card A", "bench-a", 1, 110.0), ("Card A", "bench-b", 1, 7.0)]
    assert con.execute("SELECT count(*) FROM perf").fetchone()[0] == 0
    with pytest.raises(ValueError, match="bench-b"):
        load.replace_perf_inference(con, "bench-a", [_figure("Card A", 1.0, source="bench-b")], NOW)


def test_the_pipeline_load_drops_models_the_catalog_lacks_with_a_warning(con):
    parsed = ParsedSource("llamacpp", "inference", inference=[_figure("Card A", 100.0), _figure("Card Z", 1.0)])
    assert loaders.load_inference(con, parsed, NOW) == 1
    assert _rows(con) == [("Card A", "bench-a", 1, 100.0)]
    assert parsed.warnings == ["llamacpp: not in the catalog, dropped: Card Z"]
    assert con.execute("SELECT count(*) FROM perf").fetchone()[0] == 0


# ---- the replayed run and the CLI ------------------------------------------------------------

@pytest.mark.e2e
def test_the_replay_run_loads_inference_figures_and_none_of_them_reach_perf_or_the_ranking(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        n, sources = con.execute("SELECT count(*), list(DISTINCT source) FROM perf_inference").fetchone()
        assert n == 178 and sources == [LLAMACPP_SOURCE_KEY]
        perf_sources = {s for (s,) in con.execute("SELECT DISTINCT source FROM perf").fetchall()}
        assert perf_sources == {"lambda-pytorch-2024", "lambda-pytorch-v1", "lambda-pytorch-2021mid", "estimate", "combined", "weighted",
                                "pytorch-gpu-benchmark", "gpu-insights", "cnn-benchmarks", "deep-learning-benchmark",
                                "mlperf-training"}
        # Inference figures never rank: every ranked speed is a training figure's source.
        assert con.execute("SELECT count(*) FROM ranking_daily WHERE perf_source LIKE 'llamacpp%'").fetchone()[0] == 0
        ranked = {s for (s,) in con.execute("SELECT DISTINCT perf_source FROM ranking_daily").fetchall()}
        assert ranked <= perf_sources
        status, rows, error = con.execute("SELECT status, rows, error FROM runs WHERE source = 'llamacpp'").fetchone()
        assert (status, rows) == ("ok", 178) and "M2 Ultra" in error
    finally:
        con.close()


@pytest.mark.e2e
def test_perf_inference_json_is_one_object_per_model_workload_and_phase(replay_db):
    res = runner.invoke(app, ["perf", "--inference", "--json", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 70  # the single-card figures
    assert all(set(r) == {"model", "workload", "phase", "tokens_per_s", "source", "as_of"} for r in rows)
    assert len({(r["model"], r["workload"], r["phase"]) for r in rows}) == len(rows)
    assert {(r["source"], r["as_of"]) for r in rows} == {(LLAMACPP_SOURCE_KEY, "2024-05-12")}
    first = rows[0]
    assert (first["model"], first["workload"], first["phase"], first["tokens_per_s"]) == (
        "H100 PCIe 80 GB", "llama3-8b-q4_k_m", "text-generation", 144.49)
    by_key = {(r["model"], r["workload"], r["phase"]): r["tokens_per_s"] for r in rows}
    assert by_key[("GeForce RTX 3090", "llama3-8b-f16", "prompt-processing")] == 4239.64
    assert ("GeForce RTX 3070", "llama3-8b-f16", "text-generation") not in by_key  # OOM


@pytest.mark.e2e
def test_perf_inference_table_names_source_and_date_and_refuses_training_flags(replay_db):
    res = runner.invoke(app, ["perf", "--inference", "--db", str(replay_db)])
    assert res.exit_code == 0, res.output
    assert LLAMACPP_SOURCE_KEY in res.output and "2024-05-12" in res.output and "not in the ranking" in res.output
    for extra in (["--estimate"], ["--evaluate"], ["--precision", "fp32"], ["--all"]):  # --all was ignored
        bad = runner.invoke(app, ["perf", "--inference", *extra, "--db", str(replay_db)])
        assert bad.exit_code == 2 and "training figures" in " ".join(bad.output.split())


@pytest.mark.e2e
def test_perf_inference_model_shows_that_cards_figures_only(replay_db):
    by_name = runner.invoke(app, ["perf", "--inference", "RTX 3090", "--json", "--db", str(replay_db)])
    assert by_name.exit_code == 0, by_name.output
    assert {json.loads(line)["model"] for line in by_name.stdout.splitlines()} == {"GeForce RTX 3090"}
    by_title = runner.invoke(app, ["perf", "--inference", "rtx4090", "--json", "--db", str(replay_db)])
    assert {json.loads(line)["model"] for line in by_title.stdout.splitlines()} == {"GeForce RTX 4090"}
    none = runner.invoke(app, ["perf", "--inference", "xyzzy", "--db", str(replay_db)])
    assert none.exit_code == 1 and "no GPU with an inference figure matches 'xyzzy'" in none.output


def test_parse_command_prints_the_cells():
    res = runner.invoke(app, ["parse", "llamacpp", str(README)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert len(rows) == 200 and set(rows[0]) == {"gpu", "gpu_count", "workload", "phase", "tokens_per_s"}
