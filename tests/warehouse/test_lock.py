"""One writer at a time: a second run refuses naming the running one (by its kind of command: an
import is not a run), a dead run's lock is taken over, and readers that meet a load wait briefly, then
read or refuse with a clear message."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import RunLock, RunLockedError

runner = CliRunner()


def _write_lock(db: Path, pid: int, command: str | None = "run") -> Path:
    """The lock another gpuvalue process (``pid``) holding ``db`` for ``command`` leaves (None: a lock
    written before locks named their command)."""
    lock = Path(str(db) + ".lock")
    record = {"pid": pid, "started_at": datetime.now(timezone.utc).isoformat()}
    if command is not None:
        record["command"] = command
    lock.write_text(json.dumps(record))
    return lock


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def db(replay_db, tmp_path) -> Path:
    path = tmp_path / "gpuvalue.duckdb"
    shutil.copy(replay_db, path)
    return path


@pytest.fixture
def live_pid():
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    yield proc.pid
    proc.kill()
    proc.wait()


_HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
os.ftruncate(fd, 0)
os.write(fd, sys.argv[2].replace("PID", str(os.getpid())).encode())
print("held", flush=True)
time.sleep(120)
"""


@pytest.fixture
def hold():
    """``hold(db, command)``: another process holding the run lock of ``db`` as gpuvalue's ``command``
    would (None: a record written before records named their command); its pid."""
    procs = []

    def start(db: Path, command: str | None = "run") -> int:
        record = {"pid": "PID", "started_at": datetime.now(timezone.utc).isoformat()}
        if command is not None:
            record["command"] = command
        proc = subprocess.Popen([sys.executable, "-c", _HOLDER, str(db) + ".lock",
                                 json.dumps(record).replace('"PID"', "PID")], stdout=subprocess.PIPE, text=True)
        procs.append(proc)
        assert proc.stdout.readline().strip() == "held"
        return proc.pid

    yield start
    for proc in procs:
        proc.kill()
        proc.wait()


@pytest.mark.e2e
def test_a_second_run_refuses_and_names_the_running_one(db, hold, prefect_harness):
    live_pid = hold(db)
    lock = Path(str(db) + ".lock")
    before = db.read_bytes()

    res = runner.invoke(app, ["run", "--replay", "--db", str(db)])

    assert res.exit_code == 2
    message = " ".join(res.output.split())
    assert f"another gpuvalue run (pid {live_pid}" in message and "wait for it to finish" in message
    assert "Traceback" not in res.output
    # Refused before its flow started: inside the flow, Prefect logged the refusal as a crash (28 lines).
    assert "running the daily flow" not in res.output and len(res.output.strip().splitlines()) <= 2
    assert json.loads(lock.read_text())["pid"] == live_pid  # the running one keeps its lock
    assert db.read_bytes() == before


@pytest.mark.e2e
def test_a_lock_left_by_a_dead_process_is_taken_over(db):
    dead = _dead_pid()
    lock = _write_lock(db, dead)

    res = runner.invoke(app, ["rematch", "--db", str(db)])

    assert res.exit_code == 0, res.output
    assert "re-matched" in res.output
    assert not lock.exists()  # taken over, then released


def test_run_lock_is_exclusive_between_processes(tmp_path, hold, live_pid):
    db = tmp_path / "g.duckdb"
    holder = hold(db)
    with pytest.raises(RunLockedError, match=f"pid {holder}"):
        RunLock(db).acquire()
    os.kill(holder, 9)  # killed: the kernel ends its lock with it
    deadline = time.monotonic() + 10
    while RunLock(db).held() and time.monotonic() < deadline:
        time.sleep(0.05)
    _write_lock(db, live_pid)  # a record naming a live process that holds no lock blocks nothing
    with RunLock(db) as held:
        assert json.loads(held.path.read_text())["pid"] == os.getpid()
    assert not held.path.exists()


def _reader(args: list[str], db: Path, cwd: Path, **settings: str) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUVALUE_")} | settings
    return subprocess.Popen([sys.executable, "-m", "gpuvalue.flows.cli", *args, "--db", str(db)], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


@pytest.mark.e2e
def test_readers_meeting_a_load_wait_then_refuse_or_read(db, tmp_path):
    writer = duckdb.connect(str(db))  # what a running load holds
    try:
        t0 = time.monotonic()
        # Each waits GPUVALUE_READ_WAIT_S (3 s here, 10 s by default) for the load, then gives up.
        wait = {"GPUVALUE_READ_WAIT_S": "3"}
        procs = {
            "rank": _reader(["rank", "--top", "3"], db, tmp_path, **wait),
            "sql": _reader(["sql", "SELECT count(*) FROM ranking_daily"], db, tmp_path, **wait),
            "export": _reader(["export", "--format", "csv", "--out", str(tmp_path / "r.csv")], db, tmp_path, **wait),
        }
        results = {name: (p.wait(timeout=60), *p.communicate()) for name, p in procs.items()}
        waited = time.monotonic() - t0
        for name, (code, stdout, stderr) in results.items():
            assert code == 2, (name, stdout, stderr)
            message = " ".join(stderr.split())
            assert "is in use by another process (PID " in message and "a running gpuvalue load" in message, name
            assert "(waited 3 s; GPUVALUE_READ_WAIT_S waits longer)" in message, name
            assert "Traceback" not in stderr
        assert waited >= 3  # they waited for the load before giving up
        assert not (tmp_path / "r.csv").exists()

        # A load that ends while a reader waits: the reader gets the finished day.
        late = _reader(["rank", "--top", "3", "--json"], db, tmp_path)
        time.sleep(2.0)
    finally:
        writer.close()
    code, stdout, stderr = late.wait(timeout=60), *late.communicate()
    assert code == 0, stderr
    assert len(stdout.splitlines()) == 3


@pytest.mark.parametrize("command", [["rank"], ["sql", "SELECT 1"], ["export", "--format", "csv"]])
def test_readers_wait_as_long_as_the_setting_says(command, tmp_path, monkeypatch):
    """GPUVALUE_READ_WAIT_S reaches the open of every reading command, and the one-line refusal
    says how long it waited."""
    from gpuvalue.warehouse import db as warehouse_db

    asked: list[float] = []

    def busy(path, *, read_only=False, wait_s=10.0):
        asked.append(wait_s)
        raise warehouse_db.DatabaseBusyError(f"{path} is being written by a running gpuvalue load; "
                                             "try again in a minute")

    monkeypatch.setattr(warehouse_db, "open_database", busy)
    monkeypatch.setenv("GPUVALUE_READ_WAIT_S", "0.5")
    (tmp_path / "g.duckdb").write_bytes(b"")
    res = runner.invoke(app, [*command, "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 2, res.output
    assert asked == [0.5]
    assert "(waited 0.5 s; GPUVALUE_READ_WAIT_S waits longer)" in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_the_lock_says_who_holds_it_without_taking_it(tmp_path, hold, live_pid):
    db = tmp_path / "g.duckdb"
    lock = RunLock(db)
    assert lock.held_elsewhere() is None  # no lock file
    _write_lock(db, _dead_pid())
    assert lock.held_elsewhere() is None  # a dead run's lock is taken over by the next
    _write_lock(db, live_pid)
    assert lock.held_elsewhere() is None  # a live process that holds no lock (a pid reused)
    _write_lock(db, os.getpid())
    assert lock.held_elsewhere() is None
    holder = hold(db)
    assert f"another gpuvalue run (pid {holder}" in lock.held_elsewhere()
    assert not lock.acquired and json.loads(lock.path.read_text())["pid"] == holder


@pytest.mark.e2e
def test_a_run_whose_database_another_program_holds_is_refused_before_its_flow(db, prefect_harness, monkeypatch):
    """It was refused from inside the flow, after Prefect's start, then waited a minute at exit."""
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], "
                               "read_only=True); print('open', flush=True); time.sleep(60)", str(db)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        monkeypatch.setenv("GPUVALUE_READ_WAIT_S", "0")
        monkeypatch.setenv("GPUVALUE_WRITE_WAIT_S", "0")  # a run waits 120 s for readers by default
        res = runner.invoke(app, ["run", "--replay", "--db", str(db)])
    finally:
        holder.kill()
        holder.wait()
    assert res.exit_code == 2, res.output
    assert f"is in use by another process (PID {holder.pid})" in " ".join(res.output.split())
    assert "running the daily flow" not in res.output


@pytest.mark.parametrize("command", ["import", "rematch", "reparse", "measure", "run"])
def test_the_lock_records_and_names_its_command(tmp_path, hold, command):
    db = tmp_path / "g.duckdb"
    held = RunLock(db, command)
    held.acquire()
    record = json.loads(held.path.read_text())
    assert record["command"] == command and record["pid"] == os.getpid()
    held.release()
    live_pid = hold(db, command)  # as another process holding it writes it
    with pytest.raises(RunLockedError) as refused:
        RunLock(db, "run").acquire()
    assert f"another gpuvalue {command} (pid {live_pid}," in str(refused.value)


def test_an_import_refused_by_a_running_import_says_import(tmp_path, hold):
    db = tmp_path / "g.duckdb"
    csv = tmp_path / "sold.csv"
    csv.write_text("title,price,sold_date\nRTX 3090,700,2020-12-01\n")
    live_pid = hold(db, "import")
    res = runner.invoke(app, ["import", "listings", str(csv), "--source", "t", "--db", str(db)])
    assert res.exit_code == 2, res.output
    message = " ".join(res.output.split())
    assert f"another gpuvalue import (pid {live_pid}" in message and "gpuvalue run" not in message


def test_a_lock_without_a_command_names_none(tmp_path, hold):
    db = tmp_path / "g.duckdb"
    live_pid = hold(db, None)
    assert f"another gpuvalue command (pid {live_pid}" in RunLock(db).held_elsewhere()
