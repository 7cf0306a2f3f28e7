"""A temporary Prefect server left behind by a killed run is stopped by the next run; a live run's
server, or a recorded pid now running something else, is left alone. (The kernel-signal half, a
server dying with its SIGKILLed run, is tested on a real run in tests/e2e/test_kill_midload.py.)"""

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


# ---- this run's own temporary server: launched first, waited for when the flow starts ------------

HEALTHY_AFTER = """
import http.server, sys, time
time.sleep(float(sys.argv[2]))
class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200 if self.path == "/api/health" else 404)
        self.end_headers()
    def log_message(self, *args):
        pass
http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health).serve_forever()
"""


@pytest.fixture
def fake_servers(monkeypatch):
    """Stand-ins for Prefect's server process: each launch takes the next script from a list."""
    from gpuvalue.flows import prefect_server

    scripts: list[str] = []
    launched: list[subprocess.Popen] = []

    def launch(port: int) -> subprocess.Popen:
        script = scripts.pop(0) if scripts else HEALTHY_AFTER
        proc = subprocess.Popen([sys.executable, "-c", script, str(port), "0.3"])
        launched.append(proc)
        return proc

    monkeypatch.setattr(prefect_server, "_launch", launch)
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    yield scripts, launched
    for proc in launched:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_the_temporary_server_runs_without_the_services_that_only_consume_events(monkeypatch):
    """Nobody reads a run's temporary server back: recording, persisting, vacuuming and reacting to
    its events cost seconds of its start and CPU beside the run. A setting of the user's stands."""
    from gpuvalue.flows import prefect_server

    started = []
    monkeypatch.setattr(prefect_server.subprocess, "Popen", lambda argv, env, **kw: started.append(env))
    monkeypatch.setattr(prefect_server, "place_template", lambda env: None)
    monkeypatch.setenv("PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED", "true")
    prefect_server._launch(4299)
    [env] = started
    assert {k: v for k, v in env.items() if k.startswith("PREFECT_SERVER_SERVICES_")} == {
        "PREFECT_SERVER_SERVICES_EVENT_PERSISTER_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_TRIGGERS_ENABLED": "true",
        "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_ENABLED": "false",
        "PREFECT_SERVER_SERVICES_EVENT_LOGGER_ENABLED": "false",
    }
    # Each is one of Prefect's own settings (a misspelt name would be ignored without a word).
    from prefect.settings import Settings

    services = Settings().server.services
    for name in prefect_server.TEMPORARY_SERVER_IDLE_SERVICES:
        assert hasattr(getattr(services, name.lower()), "enabled"), name


def test_no_server_is_launched_when_the_environment_names_one(monkeypatch):
    from gpuvalue.flows.prefect_server import launch_temporary_server

    monkeypatch.setenv("PREFECT_API_URL", "http://127.0.0.1:4200/api")
    assert launch_temporary_server() is None


def test_a_launched_server_is_waited_for_recorded_and_stopped_with_the_run(tmp_path, fake_servers):
    from gpuvalue.flows.prefect_server import launch_temporary_server

    _, launched = fake_servers
    server = launch_temporary_server()
    assert server is not None and launched  # launched at once, not waited for
    server.record(tmp_path / RECORD_NAME)
    assert server.wait_ready(timeout_s=30) == f"http://127.0.0.1:{server.port}/api"
    record = json.loads((tmp_path / RECORD_NAME).read_text())
    assert record == {**record, "pid": launched[0].pid, "owner": os.getpid(), "port": server.port}
    server.stop()
    assert launched[0].poll() is not None
    assert not (tmp_path / RECORD_NAME).exists()
    server.stop()  # twice is harmless (the run's exit stops it again)


def test_a_lost_port_is_retried_on_another(tmp_path, fake_servers):
    from gpuvalue.flows.prefect_server import PORT_TAKEN_EXIT, launch_temporary_server

    scripts, launched = fake_servers
    scripts.append(f"import sys; sys.exit({PORT_TAKEN_EXIT})")
    server = launch_temporary_server()
    server.record(tmp_path / RECORD_NAME)
    server.wait_ready(timeout_s=30)
    assert len(launched) == 2 and launched[0].returncode == PORT_TAKEN_EXIT
    assert json.loads((tmp_path / RECORD_NAME).read_text())["pid"] == launched[1].pid
    server.stop()


def test_a_server_that_dies_or_never_answers_fails_in_one_line(fake_servers):
    from gpuvalue.flows.prefect_server import launch_temporary_server

    scripts, launched = fake_servers
    scripts.append("import sys; sys.exit(1)")
    with pytest.raises(RuntimeError, match="exited with status 1 before it answered"):
        launch_temporary_server().wait_ready(timeout_s=30)
    scripts.append("import time; time.sleep(60)")
    with pytest.raises(RuntimeError, match=r"did not answer within 1 s \(PREFECT_SERVER_EPHEMERAL_STARTUP"):
        launch_temporary_server().wait_ready(timeout_s=1)
    assert launched[-1].poll() is not None  # stopped, not left running


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_a_server_named_in_prefects_settings_is_used_and_the_launched_one_stopped(tmp_path, fake_servers):
    """A profile (not the environment) may name a running server: the run then uses it."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from gpuvalue.flows.prefect_server import adopt, launch_temporary_server

    _, launched = fake_servers
    server = launch_temporary_server()
    with temporary_settings(updates={PREFECT_API_URL: "http://127.0.0.1:4200/api"}):
        assert adopt(server, tmp_path) is None
    assert launched[0].wait(timeout=15) is not None
    assert not (tmp_path / RECORD_NAME).exists()


@pytest.mark.e2e  # imports Prefect (about 2 s of a test worker): the fast tier imports none
def test_adopting_records_the_server_in_the_data_folder_and_waits_for_it(tmp_path, fake_servers):
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from gpuvalue.flows.prefect_server import adopt, launch_temporary_server

    _, launched = fake_servers
    server = launch_temporary_server()
    # As a user's run: no API in Prefect's settings (the session's test server may have set one).
    with temporary_settings(restore_defaults={PREFECT_API_URL}):
        assert adopt(server, tmp_path / "data") == server.api_url
    assert json.loads((tmp_path / "data" / RECORD_NAME).read_text())["pid"] == launched[0].pid
    server.stop()


def test_the_launcher_runs_the_servers_module_in_its_own_process_with_gpuvalues_garbage_policy(tmp_path):
    """A new interpreter would collect garbage at Python's default pace (flows/gc_policy.py)."""
    from gpuvalue.flows.gc_policy import GC_FIRST_THRESHOLD
    from gpuvalue.flows.prefect_server import LAUNCHER

    (tmp_path / "probe.py").write_text("import gc, os, sys\nprint(gc.get_threshold()[0], os.getpid(), sys.argv[1:])\n")
    launched = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(os.getpid()), sys.executable, "-m", "probe",
                                 "--port", "4299"], env={**os.environ, "PYTHONPATH": str(tmp_path)},
                                stdout=subprocess.PIPE, text=True)
    printed, _ = launched.communicate(timeout=60)
    assert launched.returncode == 0
    assert printed.strip().split(maxsplit=2) == [str(GC_FIRST_THRESHOLD), str(launched.pid), "['--port', '4299']"]
