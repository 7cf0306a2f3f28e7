"""`gpuvalue reparse` checks every archived body against the sha256 its index line recorded, and
names each one that differs: a body changed after the run is not what was fetched that day."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.fixture
def copied(replay_db, tmp_path) -> Path:
    folder = tmp_path / "inst"
    folder.mkdir()
    shutil.copy(replay_db, folder / "gpuvalue.duckdb")
    shutil.copytree(replay_db.parent / "raw", folder / "raw")
    return folder / "gpuvalue.duckdb"


@pytest.mark.e2e
def test_reparse_names_a_tampered_body_and_leaves_its_source_as_it_was(copied):
    raw = copied.parent / "raw"
    entries = [json.loads(line) for line in (raw / "index.jsonl").read_text().splitlines() if line.strip()]
    lambda_pages = [e for e in entries if e["source"] == "lambda"]
    victim = lambda_pages[0]
    body = raw / "bodies" / victim["sha256"][:2] / f"{victim['sha256']}.gz"
    original = gzip.decompress(body.read_bytes())
    body.write_bytes(gzip.compress(original + b"\n| GeForce RTX 3090 | 99 |\n"))  # a figure added by hand
    con = duckdb.connect(str(copied), read_only=True)
    before = con.execute("SELECT * EXCLUDE (loaded_at) FROM perf WHERE source LIKE 'lambda%' ORDER BY ALL").fetchall()
    con.close()

    res = runner.invoke(app, ["reparse", "--source", "lambda", "--db", str(copied)])

    assert res.exit_code == 1, res.output
    text = " ".join(res.output.split())
    assert f"changed body lambda {victim['url']}" in text and "not the one its index line records" in text
    assert "lambda left as it was: 1 archived body differs from the sha256 recorded" in text
    assert "Traceback" not in res.output
    con = duckdb.connect(str(copied), read_only=True)
    after = con.execute("SELECT * EXCLUDE (loaded_at) FROM perf WHERE source LIKE 'lambda%' ORDER BY ALL").fetchall()
    con.close()
    assert after == before  # it reported success on the changed body
