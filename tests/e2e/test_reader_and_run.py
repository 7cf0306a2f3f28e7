"""The daily run outlasts any reader: a `gpuvalue sql` query holding the warehouse when the run wants
to write is bounded (GPUVALUE_SQL_TIMEOUT_S, 30 s) below the run's patience (GPUVALUE_WRITE_WAIT_S,
120 s), so the run waits for it and loads the day; when a holder outlasts that patience, the run says
so in one line and ends at once."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytestmark = pytest.mark.e2e
REPLAY_DATE = date(2026, 11, 30)
LONG = "SELECT sum(range) FROM range(10000000000000)"
runner = CliRunner()


def _holding(db: Path, proc: subprocess.Popen, timeout_s: float = 60) -> None:
    """Until ``proc`` has the database open."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            if any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == str(db) for fd in os.listdir(f"/proc/{proc.pid}/fd")):
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise AssertionError("the reader never opened the database")


def _reader(db: Path, limit_s: float) -> subprocess.Popen:
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("GPUVALUE_")},
           "GPUVALUE_SQL_TIMEOUT_S": str(limit_s)}
    proc = subprocess.Popen([sys.executable, "-m", "gpuvalue.flows.cli", "sql", "--db", str(db), LONG],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    _holding(db, proc)
    return proc


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc to see the reader hold the file")
def test_a_run_waits_for_a_long_sql_reader_and_ranks_the_day(seed_estimate_cv, tmp_path, monkeypatch):
    from gpuvalue.flows.daily import daily_flow

    db = seed_estimate_cv(tmp_path / "gpuvalue.duckdb")
    # Longer than the 10 s a load used to wait: the run failed with DatabaseBusyError, nothing loaded.
    reader = _reader(db, 14)
    try:
        started = time.monotonic()
        summary = daily_flow(as_of=REPLAY_DATE, replay=True, db=str(db), export=False)
        took = time.monotonic() - started
        _, err = reader.communicate(timeout=60)
    finally:
        reader.kill()
    assert summary.gave_up is None and not summary.failed, (summary.gave_up, summary.outcomes)
    assert summary.ranked > 0
    assert took >= 10  # it did wait for the reader
    assert reader.returncode == 1 and "stopped at the time limit of 14 s" in err


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc to see the reader hold the file")
def test_a_run_gives_up_on_a_holder_past_its_patience_in_one_line_and_at_once(seed_estimate_cv, tmp_path, monkeypatch):
    from gpuvalue.flows.daily import daily_flow

    db = seed_estimate_cv(tmp_path / "gpuvalue.duckdb")
    monkeypatch.setenv("GPUVALUE_WRITE_WAIT_S", "2")
    reader = _reader(db, 120)
    try:
        started = time.monotonic()
        summary = daily_flow(as_of=REPLAY_DATE, replay=True, db=str(db), export=False)
        took = time.monotonic() - started
    finally:
        reader.kill()
        reader.wait()
    assert summary.gave_up is not None and f"in use by another process (PID {reader.pid})" in summary.gave_up
    assert "\n" not in summary.gave_up
    assert took < 30, took  # it raised inside the flow, whose logs then took about 70 s to drain
    assert not Path(str(db) + ".lock").exists()
