"""`gpuvalue sql` within bounds: a statement time limit, locked memory and spill limits, and Ctrl-C
that stops the query and exits in one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest_exports import make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()
ENDLESS = "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r"
LONG = "SELECT sum(range) FROM range(10000000000000)"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sql-bounds") / "gpuvalue.duckdb"
    make_ranking_database(path).close()
    return path


def _one_line(res, code: int) -> str:
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.stderr
    return lines[0]


def test_a_recursive_cte_without_end_stops_at_the_time_limit(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_SQL_TIMEOUT_S", "1")
    started = time.monotonic()
    res = runner.invoke(app, ["sql", "--db", str(db), ENDLESS])
    took = time.monotonic() - started
    line = _one_line(res, 1)
    assert "stopped at the time limit of 1 s a query may run (GPUVALUE_SQL_TIMEOUT_S)" in line
    assert took < 8  # it ran until killed


def test_the_limit_names_the_statement_among_several(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_SQL_TIMEOUT_S", "0.5")
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT 1; " + LONG])
    assert "statement 2 of 2: stopped at the time limit of 0.5 s" in _one_line(res, 1)


def test_memory_is_bounded_and_the_bound_locked(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_SQL_MEMORY_LIMIT", "200MB")
    res = runner.invoke(app, ["sql", "--db", str(db), "--json",
                              "SELECT current_setting('memory_limit') AS m, current_setting('max_temp_directory_size') AS t"])
    assert res.exit_code == 0, res.output
    assert '"m": "190.7 MiB"' in res.stdout and '"t": "1.8 GiB"' in res.stdout  # 200MB; the default 2GB
    res = runner.invoke(app, ["sql", "--db", str(db), "SET memory_limit = '100GB'"])
    assert "read-only" in _one_line(res, 2) or "locked" in res.stderr
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT max(len(l)) FROM (SELECT list(range) l FROM range(300000000))"])
    line = _one_line(res, 1)
    assert "more memory than the 200MB it may use (GPUVALUE_SQL_MEMORY_LIMIT" in line


def test_a_bad_memory_setting_is_refused_in_one_line(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_SQL_MEMORY_LIMIT", "lots")
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT 1"])
    assert "GPUVALUE_SQL_MEMORY_LIMIT='lots'" in _one_line(res, 2)


@pytest.mark.skipif(not os.path.isdir("/proc/self/fd"), reason="reads /proc to see the query start")
def test_ctrl_c_stops_a_long_query_and_exits_in_one_line_within_a_second(db):
    env = {**os.environ, "GPUVALUE_SQL_TIMEOUT_S": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "gpuvalue.flows.cli", "sql", "--db", str(db), LONG],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        _wait_until_running(proc, db)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        took = time.monotonic() - sent
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and "interrupted (Ctrl-C)" in lines[0], err
    assert took < 1.0, took


def _wait_until_running(proc, db, timeout_s: float = 30) -> None:
    """Until the query runs: the process holds the database open (it opens it just before its query)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        try:
            held = any(os.readlink(f"/proc/{proc.pid}/fd/{fd}") == str(db) for fd in os.listdir(f"/proc/{proc.pid}/fd"))
        except OSError:
            held = False
        if held:
            time.sleep(0.5)
            return
        time.sleep(0.05)
    raise AssertionError("the query never started")
