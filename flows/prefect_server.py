"""The temporary Prefect server of a `gpuvalue run`, tied to the run's life.

Without ``PREFECT_API_URL`` Prefect starts a temporary API server as a child process and stops it
when the run exits normally. A run killed with SIGKILL (the OOM killer, ``kill -9``) never gets to
stop it: the server lives on, orphaned, holding a few hundred MB, and every such run adds one.

So the run starts that server itself, from its main thread, as its first step (its start then
overlaps the run's own imports), and points the flow at it through ``PREFECT_API_URL``. Two things
end it with the run:

- on Linux the server is started through a tiny launcher that asks the kernel to send it SIGTERM
  when the run dies (``PR_SET_PDEATHSIG``), however the run dies, then becomes the server itself;
- everywhere, the server's pid is recorded in the data folder (``prefect-server.json``), and the
  next run reaps a server whose run is gone, for the platforms without that kernel signal.

The server runs in its own session, so a Ctrl-C in the terminal reaches the run, which then stops
its server in order, rather than both at once.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib.util
import json
import logging
import os
import random
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from gpuvalue.flows.gc_policy import GC_FIRST_THRESHOLD, GC_OLDER_THRESHOLDS
from gpuvalue.flows.prefect_db_template import place_template

log = logging.getLogger("gpuvalue.prefect_server")

RECORD_NAME = "prefect-server.json"
SERVER_APP = "prefect.server.api.server:create_app"  # what a Prefect temporary server runs (its command line)
# The services a temporary server runs that only consume the run's events (Prefect's setting names,
# PREFECT_SERVER_SERVICES_<NAME>_ENABLED; the event persister's off also stops the event vacuum).
TEMPORARY_SERVER_IDLE_SERVICES = ("EVENT_PERSISTER", "TRIGGERS", "TASK_RUN_RECORDER", "EVENT_LOGGER")

# Run as `python -c LAUNCHER <run pid> <argv...>`: ask to be sent SIGTERM when the process that started
# this one dies (Linux), give up if it is already gone, then run the server's module (argv: python -m
# MODULE ARGS...) in this process, collecting garbage as gpuvalue does (flows/gc_policy.py), which a
# new interpreter would not. The process's command line still names the server's app.
LAUNCHER = """
import ctypes, gc, os, runpy, signal, sys
run = int(sys.argv[1])
if sys.platform.startswith("linux"):
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
if os.getppid() != run:
    sys.exit(0)
gc.set_threshold(%d, %d, %d)
assert sys.argv[3] == "-m"
module, sys.argv = sys.argv[4], [sys.argv[4], *sys.argv[5:]]
runpy.run_module(module, run_name="__main__", alter_sys=True)
""" % (GC_FIRST_THRESHOLD, *GC_OLDER_THRESHOLDS)


def running(pid: int) -> bool:
    """A process that runs (a zombie, dead but not yet reaped by its parent, does not)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0] != "Z"
    except (OSError, IndexError):
        return True


def _command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        pass
    try:  # no /proc (macOS)
        return subprocess.run(["ps", "-o", "command=", "-p", str(pid)], capture_output=True, text=True,
                              timeout=5).stdout
    except (OSError, subprocess.SubprocessError):
        return ""


def reap_stale_server(data_dir: Path) -> int | None:
    """Stop the temporary server a killed run left behind, as recorded in ``data_dir``; returns its pid.

    Only a server whose run is gone is touched, and only if the recorded pid still runs a Prefect
    server (a reused pid running anything else is left alone)."""
    record_path = Path(data_dir) / RECORD_NAME
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
        pid, owner = int(record["pid"]), int(record["owner"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if running(owner) and owner != os.getpid():
        return None  # its run is still going (another run on this data folder)
    reaped = None
    if running(pid) and SERVER_APP in _command_line(pid):
        log.warning("stopping the temporary Prefect server (pid %d) that a killed run left behind", pid)
        try:
            os.kill(pid, signal.SIGTERM)
            deadline = time.monotonic() + 10
            while running(pid) and time.monotonic() < deadline:
                time.sleep(0.1)
            if running(pid):
                os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        reaped = pid
    try:
        record_path.unlink()
    except FileNotFoundError:
        pass
    return reaped


PORTS = range(8000, 9000)  # where Prefect's own temporary servers look for a free port
PORT_TAKEN_EXIT = 3  # uvicorn's exit status when another process took the port first


def _free_port() -> int:
    for _ in range(20):
        port = random.choice(PORTS)
        with contextlib.closing(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) as sock:
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"no free port in {PORTS.start}-{PORTS.stop - 1} for Prefect's temporary server")


def _prefect_package_dir() -> Path:
    """Where the prefect package lies, found without importing it (its import takes seconds)."""
    spec = importlib.util.find_spec("prefect")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("prefect is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


@dataclass
class TemporaryServer:
    """This run's temporary Prefect server: launched first, waited for only when the flow starts.

    Started this way, and not by Prefect when the flow asks for an API, its start-up (importing the
    server's modules, migrating its database) overlaps the run's own imports instead of following
    them; the flow then talks to it as to any Prefect server, through ``PREFECT_API_URL``."""

    port: int
    process: subprocess.Popen
    record_path: Path | None = None

    @property
    def api_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/api"

    def wait_ready(self, timeout_s: float) -> str:
        """Block until the server answers its health check; returns its API URL."""
        import httpx

        deadline = time.monotonic() + timeout_s
        with httpx.Client(timeout=5) as client:
            while time.monotonic() < deadline:
                status = self.process.poll()
                if status == PORT_TAKEN_EXIT:  # lost the port between the check and the bind
                    self.port = _free_port()
                    self.process = _launch(self.port)
                    self.record(self.record_path)
                elif status is not None:
                    raise RuntimeError(f"Prefect's temporary server exited with status {status} before it answered")
                try:
                    if client.get(f"{self.api_url}/health").status_code == 200:
                        return self.api_url
                except httpx.TransportError:
                    pass
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"Prefect's temporary server did not answer within {timeout_s:.0f} s "
                           "(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS sets the wait)")

    def record(self, record_path: Path | None) -> None:
        """Note the server in the data folder, so a later run can stop it if this one is killed
        where the kernel's signal does not reach (not Linux)."""
        self.record_path = record_path
        if record_path is None:
            return
        record = {"pid": self.process.pid, "owner": os.getpid(), "port": self.port,
                  "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
        try:
            record_path.parent.mkdir(parents=True, exist_ok=True)
            record_path.write_text(json.dumps(record) + "\n", encoding="utf-8")
        except OSError as exc:  # a record is a convenience; the launcher's signal does the work
            log.warning("could not record the temporary Prefect server in %s: %s", record_path, exc)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.record_path is not None:
            try:
                self.record_path.unlink()
            except FileNotFoundError:
                pass


def _launch(port: int) -> subprocess.Popen:
    """What Prefect runs for its temporary server, behind the launcher, started from this thread."""
    argv = [sys.executable, "-m", "uvicorn", "--app-dir", str(_prefect_package_dir().parent), "--factory",
            SERVER_APP, "--host", "127.0.0.1", "--port", str(port), "--log-level", "error", "--lifespan", "on"]
    env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1", "PREFECT__SERVER_FINAL": "1"}
    # Nobody browses a run's temporary server: registering the block types (plugin entry points and
    # all) costs seconds of its start; a long-running server (`prefect server start`) still does it.
    env.setdefault("PREFECT_SERVER_REGISTER_BLOCKS_ON_START", "false")
    # Nor reads its events back: the services that record, persist, vacuum and react to them (about
    # 2 s of its start, measured: ready in 7.0-7.5 s instead of 9.1-9.9 s; and CPU beside the run's
    # for every event) are off unless set.
    for service in TEMPORARY_SERVER_IDLE_SERVICES:
        env.setdefault(f"PREFECT_SERVER_SERVICES_{service}_ENABLED", "false")
    place_template(env)  # a new Prefect home gets its database already migrated
    return subprocess.Popen([sys.executable, "-c", LAUNCHER, str(os.getpid()), *argv], env=env,
                            start_new_session=True)


def launch_temporary_server() -> TemporaryServer | None:
    """Launch this run's temporary server without waiting for it, unless ``PREFECT_API_URL`` names a
    server in the environment. Call from the main thread, first thing: the kernel's signal follows
    the thread that started the server, and the server's start then overlaps the run's imports."""
    if os.environ.get("PREFECT_API_URL"):
        return None
    return _start()


def _start() -> TemporaryServer:
    port = _free_port()
    server = TemporaryServer(port=port, process=_launch(port))
    atexit.register(server.stop)
    return server


def adopt(server: TemporaryServer | None, data_dir: Path) -> str | None:
    """Once the run knows its data folder: reap a server a killed run left there, record this one,
    and wait for it. Returns the API URL the flow should use; None when Prefect's settings (a
    profile, say) name a server, in which case the launched one is stopped unused."""
    from prefect.settings import PREFECT_API_URL, PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS

    reap_stale_server(Path(data_dir))
    if PREFECT_API_URL.value():
        if server is not None:
            server.stop()
        return None
    if server is None:  # not launched early (an empty PREFECT_API_URL, say): launch now
        server = _start()
    server.record(Path(data_dir) / RECORD_NAME)
    return server.wait_ready(float(PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS.value()))
