"""The scheduled deployment end to end, against a real Prefect server in its own process.

The session's test harness is an in-process ephemeral server; schedules and a serving process
in another process need a real one, so this test starts its own with its own home and database.
The served warehouse starts with the session replay run's stored cross-validated error of the spec
estimate (conftest.seed_estimate_cv), as any day after the first does, so the served run does not
repeat that nested cross-validation; everything else it does from scratch.
"""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from conftest import REPLAY_DATE

SERVER_START_TIMEOUT_S = 120
REGISTER_TIMEOUT_S = 90
RUN_TIMEOUT_S = 240


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _server_env(home: Path, api_url: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(
        PREFECT_HOME=str(home),
        PREFECT_API_DATABASE_CONNECTION_URL=f"sqlite+aiosqlite:///{home / 'prefect.db'}",
        DO_NOT_TRACK="1",
        PREFECT_SERVER_ANALYTICS_ENABLED="false",
        PREFECT_LOGGING_LEVEL="WARNING",
        PREFECT_UI_ENABLED="false",
        # Serving needs no block types: registering them is about 3 s of the server's start (8.3 s
        # instead of 11.7 s, measured once).
        PREFECT_SERVER_REGISTER_BLOCKS_ON_START="false",
        # The serving process asks for due runs every second instead of every 10 s (the default).
        PREFECT_RUNNER_POLL_FREQUENCY="1",
    )
    if api_url:
        env["PREFECT_API_URL"] = api_url
    return env


def _wait(predicate, timeout_s: float, what: str, procs=()):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for p in procs:
            if p.poll() is not None:
                raise AssertionError(f"{what}: process exited early with {p.returncode}")
        value = predicate()
        if value:
            return value
        time.sleep(1.0)
    raise AssertionError(f"timed out after {timeout_s}s waiting for {what}")


def _healthy(url: str) -> bool:
    try:
        return httpx.get(f"{url}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def _stop(proc: subprocess.Popen | None) -> str:
    if proc is None:
        return ""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
    return proc.stdout.read().decode(errors="replace")[-4000:] if proc.stdout else ""


def _gpuvalue(*args: str) -> list[str]:
    """The CLI with the serve command registered, however the CLI module is wired."""
    return [sys.executable, "-c", "import gpuvalue.flows.cli.serve; from gpuvalue.flows.cli import app; app()", *args]


async def _deployment(api_url: str):
    from prefect.client.orchestration import PrefectClient

    async with PrefectClient(api_url) as client:
        try:
            return await client.read_deployment_by_name("gpuvalue-daily/gpuvalue-daily")
        except Exception:
            return None


async def _trigger(api_url: str, deployment_id, db: Path):
    from prefect.client.orchestration import PrefectClient

    async with PrefectClient(api_url) as client:
        run = await client.create_flow_run_from_deployment(
            deployment_id, parameters={"as_of": REPLAY_DATE, "replay": True, "db": str(db)}
        )
        return run.id


async def _run_state(api_url: str, run_id):
    from prefect.client.orchestration import PrefectClient

    async with PrefectClient(api_url) as client:
        return (await client.read_flow_run(run_id)).state


@pytest.mark.e2e
def test_serve_without_server_says_so(tmp_path):
    # A fresh process: the session's Prefect test harness must not count as a configured server.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    result = subprocess.run([sys.executable, "-m", "gpuvalue.flows.cli", "serve", "--replay"], env=env,
                            capture_output=True, text=True, timeout=120, cwd=tmp_path)
    output = " ".join((result.stdout + result.stderr).split())
    assert result.returncode == 2, output
    assert "no Prefect server is configured" in output
    assert "deploy/systemd" in output


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_serve_rejects_a_bad_cron():
    import gpuvalue.flows.cli.serve  # noqa: F401
    from gpuvalue.flows.cli import app

    result = CliRunner().invoke(app, ["serve", "--cron", "61 6 * * *"])
    assert result.exit_code == 2
    assert "invalid schedule" in result.output


@pytest.mark.e2e
def test_served_deployment_runs_on_schedule_server(tmp_path, seed_estimate_cv):
    from gpuvalue.flows.prefect_db_template import write_template

    home = tmp_path / "prefect-home"
    home.mkdir()
    # The home as a gpuvalue run leaves it: its database already migrated (the migrations are
    # Prefect's own business, and about 8 s of this test).
    write_template(home / "prefect.db")
    port = _free_port()
    api_url = f"http://127.0.0.1:{port}/api"
    db = seed_estimate_cv(tmp_path / "served" / "gpuvalue.duckdb")
    server = served = None
    try:
        server = subprocess.Popen(
            [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1", "--port", str(port)],
            env=_server_env(home), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
        )
        _wait(lambda: _healthy(api_url), SERVER_START_TIMEOUT_S, "the Prefect server's /api/health", [server])

        served = subprocess.Popen(
            _gpuvalue("serve", "--replay", "--db", str(db), "--cron", "0 6 * * *", "--timezone", "Europe/Berlin"),
            env=_server_env(home, api_url), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
        )
        deployment = _wait(lambda: asyncio.run(_deployment(api_url)), REGISTER_TIMEOUT_S,
                           "the gpuvalue-daily deployment", [server, served])

        [schedule] = deployment.schedules
        assert schedule.schedule.cron == "0 6 * * *"
        assert schedule.schedule.timezone == "Europe/Berlin"
        assert schedule.active
        assert deployment.parameters == {"replay": True, "db": str(db)}
        assert deployment.entrypoint == "gpuvalue.flows.daily.daily_flow"

        run_id = asyncio.run(_trigger(api_url, deployment.id, db))

        def finished():
            state = asyncio.run(_run_state(api_url, run_id))
            return state if state is not None and state.is_final() else None

        state = _wait(finished, RUN_TIMEOUT_S, "the triggered flow run", [server, served])
        assert state.is_completed(), state

        con = duckdb.connect(str(db), read_only=True)
        try:
            ranked, top = con.execute(
                "SELECT count(*), min(rank) FROM ranking_daily WHERE as_of = ?", [REPLAY_DATE]
            ).fetchone()
        finally:
            con.close()
        assert ranked > 10 and top == 1
    except AssertionError as exc:
        log = _stop(served)
        raise AssertionError(f"{exc}\n--- gpuvalue serve output ---\n{log}") from None
    finally:
        _stop(served)
        _stop(server)
