"""A refusal for a held warehouse names the kind of holder in one word: an import is not a run."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import RunLock, RunLockedError

runner = CliRunner()


@pytest.fixture
def live_pid():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    yield proc.pid
    proc.kill()
    proc.wait()


@pytest.mark.parametrize("command", ["import", "rematch", "reparse", "measure", "run"])
def test_the_lock_records_and_names_its_command(tmp_path, live_pid, command):
    db = tmp_path / "g.duckdb"
    held = RunLock(db, command)
    held.acquire()
    record = json.loads(held.path.read_text())
    assert record["command"] == command and record["pid"] > 0
    record["pid"] = live_pid  # as another process holding it would have written it
    held.path.write_text(json.dumps(record))
    with pytest.raises(RunLockedError) as refused:
        RunLock(db, "run").acquire()
    assert f"another gpuvalue {command} (pid {live_pid}," in str(refused.value)
    held.path.unlink()


def test_an_import_refused_by_a_running_import_says_import(tmp_path, live_pid):
    db = tmp_path / "g.duckdb"
    csv = tmp_path / "sold.csv"
    csv.write_text("title,price,sold_date\nRTX 3090,700,2020-12-01\n")
    RunLock(db).path.write_text(json.dumps({"pid": live_pid, "started_at": "2026-12-03T08:00:00+00:00",
                                            "command": "import"}))
    res = runner.invoke(app, ["import", "listings", str(csv), "--source", "t", "--db", str(db)])
    assert res.exit_code == 2, res.output
    message = " ".join(res.output.split())
    assert f"another gpuvalue import (pid {live_pid}" in message and "gpuvalue run" not in message


def test_a_lock_without_a_command_names_none(tmp_path, live_pid):
    db = tmp_path / "g.duckdb"
    RunLock(db).path.write_text(json.dumps({"pid": live_pid, "started_at": "x"}))
    assert f"another gpuvalue command (pid {live_pid}" in RunLock(db).held_elsewhere()
