"""`gpuvalue sql` bounded end to end: the memory cap and the time limit hold while the answer is
fetched and shown, not only while DuckDB computes it (`--json` on a 10 GB answer peaked at 10.6 GB;
a 3-million-row table rendered for 90 s past the 30 s limit). `--json` streams the rows; a table
shows its first rows and says that more follow. Scaled down: a 300 MB answer under a 64 MB cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest
from conftest_exports import make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.cli.sql_cli import CELL_CHARS, TABLE_ROWS

runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("sql-answers") / "gpuvalue.duckdb"
    make_ranking_database(path).close()
    return path


def _peak_mb(args: list[str], **settings: str) -> tuple[subprocess.CompletedProcess, float, int]:
    """The command's exit, the seconds it took and its peak resident memory (MB), its stdout counted
    in bytes and dropped."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUVALUE_")} | settings
    code = ("import resource, subprocess, sys\n"
            "p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)\n"
            "n = 0\n"
            "while chunk := p.stdout.read(1 << 20):\n    n += len(chunk)\n"
            "err = p.stderr.read(); p.wait()\n"
            "print(p.returncode, n, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)\n"
            "sys.stderr.write(err.decode())\n")
    started = time.monotonic()
    res = subprocess.run([sys.executable, "-c", code, sys.executable, "-m", "gpuvalue.flows.cli", *args],
                         capture_output=True, text=True, env=env, timeout=180)
    took = time.monotonic() - started
    code_, written, peak = (int(x) for x in res.stdout.split())
    return subprocess.CompletedProcess(args, code_, str(written), res.stderr), took, peak


@pytest.mark.e2e
def test_json_streams_an_answer_far_above_the_cap_within_it(db):
    """300 MB of answer (30,000 rows of 10 kB) under a 64 MB cap: the rows stream out a batch at a
    time; the answer was held whole (and then its JSON too), about 450 MB."""
    answer_mb = 30_000 * 10_000 / 1e6
    res, _, peak = _peak_mb(["sql", "--db", str(db), "--json", "SELECT repeat('x', 10000) AS s FROM range(30000)"],
                            GPUVALUE_SQL_MEMORY_LIMIT="64MB", GPUVALUE_SQL_TIMEOUT_S="120")
    assert res.returncode == 0, res.stderr
    assert int(res.stdout) > answer_mb * 1e6  # every row was written
    assert peak < answer_mb * 0.9, f"peak {peak} MB for a {answer_mb:.0f} MB answer"


def test_json_rows_are_whole_and_in_order(db):
    res = runner.invoke(app, ["sql", "--db", str(db), "--json", "SELECT range AS n, repeat('y', 3) AS s FROM range(1000)"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert rows == [{"n": i, "s": "yyy"} for i in range(1000)]


def test_a_table_of_millions_of_rows_shows_the_first_and_says_more_follow(db, monkeypatch):
    monkeypatch.setenv("GPUVALUE_SQL_TIMEOUT_S", "30")
    started = time.monotonic()
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT range, range * 2 AS twice FROM range(3000000)"])
    took = time.monotonic() - started
    assert res.exit_code == 0, res.output
    assert f"the first {TABLE_ROWS:,} rows are shown, and more follow" in " ".join(res.stderr.split())
    assert took < 30  # within the limit, not past it (it rendered 3 million rows)


def test_a_table_cuts_megabyte_cells(db):
    res = runner.invoke(app, ["sql", "--db", str(db), "SELECT repeat('z', 1000000) AS big"])
    assert res.exit_code == 0, res.output
    assert "(1,000,000 characters)" in " ".join(res.stdout.split())
    assert res.stdout.count("z") < CELL_CHARS + 100


def test_the_time_limit_holds_while_rows_are_fetched(db, monkeypatch):
    """DuckDB computes a streamed answer as it is fetched: the fetch is bounded like the query."""
    monkeypatch.setenv("GPUVALUE_SQL_TIMEOUT_S", "1")
    started = time.monotonic()
    res = runner.invoke(app, ["sql", "--db", str(db), "--json", "SELECT range, md5(range::VARCHAR) FROM range(100000000)"])
    took = time.monotonic() - started
    assert res.exit_code == 1, res.output[-500:]
    lines = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and "stopped at the time limit of 1 s" in lines[0]
    assert took < 15

