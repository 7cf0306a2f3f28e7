"""A temporary Prefect server left behind by a killed run is stopped by the next run; a live run's
server, or a recorded pid now running something else, is left alone. (The kernel-signal half, a
server dying with its SIGKILLed run, is tested on a real run in tests/test_kill_midload.py.)"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import pytest

from gpuvalue.flows.prefect_server import RECORD_NAME, SERVER_APP, reap_stale_server, running


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.fixture
def sleeper():
    """A process that looks like a Prefect temporary server on its command line, or one that does not."""
    started: list[subprocess.Popen] = []

    def start(looks_like_server: bool = True) -> subprocess.Popen:
        extra = ["uvicorn", "--factory", SERVER_APP] if looks_like_server else ["something-else"]
        proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)", *extra])
        started.append(proc)
        return proc

    yield start
    for proc in started:
        proc.kill()
        proc.wait()


def _record(folder, pid: int, owner: int) -> None:
    (folder / RECORD_NAME).write_text(json.dumps({"pid": pid, "owner": owner, "port": 8123}), encoding="utf-8")


def test_a_server_whose_run_was_killed_is_stopped_and_forgotten(tmp_path, sleeper):
    orphan = sleeper()
    _record(tmp_path, orphan.pid, owner=_dead_pid())
    assert reap_stale_server(tmp_path) == orphan.pid
    assert orphan.wait(timeout=15) == -signal.SIGTERM
    assert not (tmp_path / RECORD_NAME).exists()


def test_the_server_of_a_run_still_going_is_left_alone(tmp_path, sleeper):
    server, owner = sleeper(), sleeper(looks_like_server=False)
    _record(tmp_path, server.pid, owner=owner.pid)
    assert reap_stale_server(tmp_path) is None
    assert running(server.pid) and (tmp_path / RECORD_NAME).exists()


def test_a_recorded_pid_now_running_something_else_is_left_alone(tmp_path, sleeper):
    stranger = sleeper(looks_like_server=False)
    _record(tmp_path, stranger.pid, owner=_dead_pid())
    assert reap_stale_server(tmp_path) is None
    assert running(stranger.pid)
    assert not (tmp_path / RECORD_NAME).exists()  # the record is stale either way


def test_no_record_or_a_broken_one_is_nothing_to_do(tmp_path):
    assert reap_stale_server(tmp_path) is None
    (tmp_path / RECORD_NAME).write_text("{not json", encoding="utf-8")
    assert reap_stale_server(tmp_path) is None


def test_a_zombie_is_not_running():
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT)  # exited, not yet reaped: a zombie
    try:
        assert not running(proc.pid)
    finally:
        proc.wait()
