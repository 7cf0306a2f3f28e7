"""The run lock is the operating system's: a dead process never holds it, two holders are impossible,
and the file's contents only name the holder in messages (a PID file let two of eight racing
processes hold a stale lock at once, kept a live unrelated PID's lock forever, and gave a traceback
on `{"pid": "x"}`)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import RunLock

runner = CliRunner()

# A racer: for each line on stdin ("go"), try the lock and answer 1 (took it) or 0; on "release", let go.
_RACER = """
import sys
from gpuvalue.warehouse.db import RunLock, RunLockedError
db = sys.argv[1]
lock = None
for line in sys.stdin:
    if line.strip() == "go":
        lock = RunLock(db, "import")
        try:
            lock.acquire()
            answer = "1"
        except RunLockedError:
            answer, lock = "0", None
        print(answer, flush=True)
    elif line.strip() == "release":
        if lock is not None:
            lock.release()
            lock = None
        print("released", flush=True)
"""

RACERS = 8
TRIALS = 100


def _stale(lock: Path) -> None:
    """What a killed run leaves: a record naming a process that is gone."""
    lock.write_text(json.dumps({"pid": 2**22 + 17, "started_at": "2026-01-01T00:00:00+00:00", "command": "run"}))


def test_eight_processes_racing_for_a_stale_lock_never_give_two_holders(tmp_path):
    db = tmp_path / "g.duckdb"
    lock = Path(str(db) + ".lock")
    racers = [subprocess.Popen([sys.executable, "-c", _RACER, str(db)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True) for _ in range(RACERS)]
    try:
        holders_per_trial = []
        for trial in range(TRIALS):
            if trial % 2 == 0:
                _stale(lock)  # odd trials: the file the last holder removed is absent
            for racer in racers:
                racer.stdin.write("go\n")
                racer.stdin.flush()
            answers = [racer.stdout.readline().strip() for racer in racers]
            holders_per_trial.append(answers.count("1"))
            for racer in racers:
                racer.stdin.write("release\n")
                racer.stdin.flush()
            assert [racer.stdout.readline().strip() for racer in racers] == ["released"] * RACERS
        assert holders_per_trial == [1] * TRIALS
    finally:
        for racer in racers:
            racer.kill()
            racer.wait()


def test_a_killed_holder_never_holds_it(tmp_path):
    db = tmp_path / "g.duckdb"
    proc = subprocess.Popen([sys.executable, "-c", "import sys, time\nfrom gpuvalue.warehouse.db import RunLock\n"
                             "RunLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(120)", str(db)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        assert f"pid {proc.pid}" in RunLock(db).held_elsewhere()
        os.kill(proc.pid, signal.SIGKILL)
        # Not yet reaped (a zombie): the kernel has closed its files, so the lock is free already.
        import time

        deadline = time.monotonic() + 10
        while RunLock(db).held() and time.monotonic() < deadline:
            time.sleep(0.05)
        with RunLock(db) as taken:
            assert json.loads(taken.path.read_text())["pid"] == os.getpid()
    finally:
        proc.kill()
        proc.wait()


def test_a_lock_file_that_names_nothing_readable_is_no_traceback(tmp_path):
    db = tmp_path / "g.duckdb"
    lock = Path(str(db) + ".lock")
    csv = tmp_path / "sold.csv"
    csv.write_text("title,price,sold_date\nRTX 3090,700,2020-12-01\n")
    for contents in ('{"pid": "x"}', "[1, 2]", "not json", '{"pid": null}', '{"pid": true}', ""):
        lock.write_text(contents)
        assert RunLock(db).held_elsewhere() is None
        res = runner.invoke(app, ["import", "listings", str(csv), "--source", "t", "--db", str(db)])
        assert res.exit_code == 0, (contents, res.output)
        assert "Traceback" not in res.output
        res = runner.invoke(app, ["runs", "--db", str(db)])
        assert "Traceback" not in res.output and not isinstance(res.exception, (ValueError, TypeError))


def test_a_holder_whose_record_is_garbage_is_still_named_in_one_line(tmp_path):
    db = tmp_path / "g.duckdb"
    proc = subprocess.Popen([sys.executable, "-c", "import fcntl, os, sys, time\n"
                             "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\nfcntl.flock(fd, fcntl.LOCK_EX)\n"
                             "os.write(fd, b'{\"pid\": \"x\"}')\nprint('held', flush=True)\ntime.sleep(120)",
                             str(db) + ".lock"], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "held"
        csv = tmp_path / "sold.csv"
        csv.write_text("title,price,sold_date\nRTX 3090,700,2020-12-01\n")
        res = runner.invoke(app, ["import", "listings", str(csv), "--source", "t", "--db", str(db)])
        assert res.exit_code == 2, res.output
        lines = [line for line in res.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "another gpuvalue command (pid unknown)" in " ".join(res.output.split())
        assert not db.exists()
    finally:
        proc.kill()
        proc.wait()
