"""A disk that fills while a run works ends the run in one line (what, where, what to do), not in
about 200 lines of Prefect's logs and tracebacks ending in "No space left on device"; the lock goes,
and the run is recorded as failed."""

from __future__ import annotations

import errno
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.e2e
runner = CliRunner()


def test_a_disk_filling_during_the_run_is_one_line(seed_estimate_cv, tmp_path, monkeypatch, capfd, prefect_harness):
    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows.cli import app

    db = seed_estimate_cv(tmp_path / "gpuvalue.duckdb")
    raw = tmp_path / "raw" / "index.jsonl"

    def full(archive, pages):
        raise OSError(errno.ENOSPC, "No space left on device", str(raw))

    monkeypatch.setattr(P, "archive_pages", full)
    res = runner.invoke(app, ["run", "--replay", "--db", str(db), "--date", "2026-11-30"])
    captured = capfd.readouterr()
    assert res.exit_code == 2, res.output
    errors = [line for line in res.output.splitlines() if line.startswith("error:")]
    assert errors == [f"error: cannot write {raw}: no space left on its disk; free some space and try again"]
    assert "Traceback" not in res.output + captured.out + captured.err
    assert not Path(str(db) + ".lock").exists()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT status, note FROM run_attempts").fetchall() == [
        ("failed", f"OSError: [Errno {errno.ENOSPC}] No space left on device: '{raw}'")]
    con.close()
