"""`gpuvalue perf` lists the cards that matter for deep learning by default, everything with --all."""

from __future__ import annotations

import json
from datetime import date, datetime

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import open_database

runner = CliRunner()

# model: segment, release date, memory GB, relative perf, measured
CARDS = {
    "GeForce RTX 3090": ("desktop", date(2020, 9, 24), 24.0, 1.0, True),
    "GeForce RTX 4090": ("desktop", date(2022, 9, 20), 24.0, 1.85, True),
    "GeForce GTX 980 Ti": ("desktop", date(2015, 6, 2), 6.0, 0.3, True),  # old, but measured
    "GeForce GTX 1080 Ti": ("desktop", date(2017, 3, 10), 11.0, 0.4, False),
    "Radeon RX 7900 XTX": ("desktop", date(2022, 11, 3), 24.0, 0.9, False),
    "RTX A6000": ("workstation", date(2020, 10, 5), 48.0, 1.05, False),
    "GeForce GT 1030": ("desktop", date(2017, 5, 17), 2.0, 0.05, False),  # too little memory
    "Riva TNT2": ("desktop", date(1999, 3, 15), 0.03, 0.001, False),  # from the last century
    "GeForce RTX 3080 Mobile": ("mobile", date(2021, 1, 12), 8.0, 0.5, False),  # a laptop chip
    "Tesla K80": ("datacenter", date(2014, 11, 17), 24.0, 0.15, False),  # before 2016, not measured
}
RELEVANT = {"GeForce RTX 3090", "GeForce RTX 4090", "GeForce GTX 980 Ti", "GeForce GTX 1080 Ti", "Radeon RX 7900 XTX",
            "RTX A6000"}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("perf") / "gpuvalue.duckdb"
    con = open_database(path)
    loaded = datetime(2026, 11, 30, 6, 0)
    for model, (segment, released, memory, rel, measured) in CARDS.items():
        vendor = "AMD" if model.startswith("Radeon") else "NVIDIA"
        con.execute("INSERT INTO gpus (model, vendor, segment, release_date, memory_gb) VALUES (?, ?, ?, ?, ?)",
                    [model, vendor, segment, released, memory])
        con.execute("INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, loaded_at) "
                    "VALUES (?, 'fp16', 'estimate', ?, 'estimate: roofline', 'GeForce RTX 3090', false, ?)",
                    [model, rel * 0.95, loaded])
        if measured:
            con.execute("INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, "
                        "workloads, loaded_at) VALUES (?, 'fp16', 'lambda-pytorch-2024', ?, 'measured', "
                        "'GeForce RTX 3090', true, 9, ?)", [model, rel, loaded])
    con.close()
    return path


def _json_models(args, db) -> list[str]:
    res = runner.invoke(app, ["perf", *args, "--json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert all(set(r) == {"model", "relative_perf", "source", "method", "reference", "precision", "as_of", "uncertainty",
                       "perf_low", "perf_high"}
               for r in rows)
    return [r["model"] for r in rows]


def _table_models(args, db) -> set[str]:
    res = runner.invoke(app, ["perf", *args, "--db", str(db)])
    assert res.exit_code == 0, res.output
    first_cells = {line.split("│")[1].strip() for line in res.stdout.splitlines() if line.startswith("│")}
    return first_cells & set(CARDS)


def test_the_table_shows_the_relevant_cards_by_default(db):
    assert _table_models([], db) == RELEVANT
    assert _table_models(["--estimate"], db) == RELEVANT


def test_all_shows_every_card(db):
    assert _table_models(["--all"], db) == set(CARDS)


def test_json_still_lists_every_card_in_order(db):
    models = _json_models([], db)
    assert set(models) == set(CARDS) and models[0] == "GeForce RTX 4090" and models[-1] == "Riva TNT2"


@pytest.mark.parametrize("query, expected", [
    ("3090", ["GeForce RTX 3090"]),
    ("gt 1030", ["GeForce GT 1030"]),  # a named card is shown even when the default table leaves it out
    ("rtx4090", ["GeForce RTX 4090"]),  # read like a listing title
    ("ti", ["GeForce GTX 1080 Ti", "GeForce GTX 980 Ti"]),
])
def test_a_model_query(db, query, expected):
    assert _json_models([query], db) == expected
    assert _table_models([query], db) == set(expected)


def test_a_query_that_matches_nothing(db):
    res = runner.invoke(app, ["perf", "UNKNOWN", "--db", str(db)])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert res.output.startswith("error: no GPU with a fp16 figure matches 'UNKNOWN'"), res.output


def test_the_reference_is_still_checked(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_REFERENCE_GPU", "GeForce RTX 9999")
    res = runner.invoke(app, ["perf", "4090", "--db", str(db)])
    assert res.exit_code == 2 and "the reference GPU 'GeForce RTX 9999' has no fp16 figure" in res.output


def test_the_card_a_query_names_comes_first_before_others_whose_name_holds_it(tmp_path):
    """`perf "RTX 3090"` led with the faster 3090 Ti (rows by speed), and its every-source table too."""
    path = tmp_path / "g.duckdb"
    con = open_database(path)
    for model, rel in (("GeForce RTX 3090", 1.0), ("GeForce RTX 3090 Ti", 1.2)):
        con.execute("INSERT INTO gpus (model, vendor, segment, release_date, memory_gb) "
                    "VALUES (?, 'NVIDIA', 'desktop', DATE '2021-01-01', 24)", [model])
        con.execute("INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, loaded_at) "
                    "VALUES (?, 'fp16', 'estimate', ?, 'estimate: roofline', 'GeForce RTX 3090', false, "
                    "TIMESTAMP '2026-11-30 06:00')", [model, rel])
    con.close()
    assert _json_models(["RTX 3090"], path) == ["GeForce RTX 3090", "GeForce RTX 3090 Ti"]
    assert _json_models(["3090 ti"], path) == ["GeForce RTX 3090 Ti"]
    text = runner.invoke(app, ["perf", "RTX 3090", "--db", str(path)], terminal_width=250).stdout
    assert text.index("GeForce RTX 3090, fp16: every figure,") < text.index("GeForce RTX 3090 Ti, fp16: every figure,")
