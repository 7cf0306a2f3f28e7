"""The temporary Prefect server of a `gpuvalue run`, tied to the run's life.

Without ``PREFECT_API_URL`` Prefect starts a temporary API server as a child process and stops it
when the run exits normally. A run killed with SIGKILL (the OOM killer, ``kill -9``) never gets to
stop it: the server lives on, orphaned, holding a few hundred MB, and every such run adds one.

So the run starts that server itself, from its main thread, before the flow asks for one, and
Prefect uses it (it keeps one temporary server per process). Two things end it with the run:

- on Linux the server is started through a tiny launcher that asks the kernel to send it SIGTERM
  when the run dies (``PR_SET_PDEATHSIG``), however the run dies, then becomes the server itself;
- everywhere, the server's pid is recorded in the data folder (``prefect-server.json``), and the
  next run reaps a server whose run is gone, for the platforms without that kernel signal.

The server runs in its own session, so a Ctrl-C in the terminal reaches the run, which then stops
its server in order, rather than both at once.
"""

from __future__ import annotations

import json
import logging
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

log = logging.getLogger("gpuvalue.prefect_server")

RECORD_NAME = "prefect-server.json"
SERVER_APP = "prefect.server.api.server:create_app"  # what a Prefect temporary server runs (its command line)

# Run as `python -c LAUNCHER <run pid> <argv...>`: ask to be sent SIGTERM when the process that started
# this one dies (Linux), give up if it is already gone, then replace this process with the server.
LAUNCHER = """
import ctypes, os, signal, sys
run = int(sys.argv[1])
if sys.platform.startswith("linux"):
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, int(signal.SIGTERM), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
if os.getppid() != run:
    sys.exit(0)
os.execv(sys.argv[2], sys.argv[2:])
"""


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


_TIED_SERVER = None


def _tied_server_class():
    global _TIED_SERVER
    if _TIED_SERVER is None:
        _TIED_SERVER = _define_tied_server()
    return _TIED_SERVER


def _define_tied_server():
    from prefect.server.api.server import SubprocessASGIServer

    class TiedServer(SubprocessASGIServer):
        """Prefect's temporary server, started through LAUNCHER and recorded in the data folder."""

        record_path: Path | None = None

        def _run_uvicorn_command(self) -> subprocess.Popen:
            import prefect
            from prefect.settings import get_current_settings

            # What Prefect runs for its temporary server, behind the launcher.
            argv = [sys.executable, "-m", "uvicorn", "--app-dir", str(prefect.__module_path__.parent), "--factory",
                    SERVER_APP, "--host", "127.0.0.1", "--port", str(self.port), "--log-level", "error",
                    "--lifespan", "on"]
            env = {**os.environ, "PREFECT_UI_ENABLED": "0", "PREFECT__SERVER_EPHEMERAL": "1",
                   "PREFECT__SERVER_FINAL": "1",
                   **get_current_settings().to_environment_variables(exclude_unset=True)}
            process = subprocess.Popen([sys.executable, "-c", LAUNCHER, str(os.getpid()), *argv], env=env,
                                       start_new_session=True)
            self._record(process.pid)
            return process

        def _record(self, pid: int) -> None:
            if self.record_path is None:
                return
            record = {"pid": pid, "owner": os.getpid(), "port": self.port,
                      "started_at": datetime.now(timezone.utc).isoformat(timespec="seconds")}
            try:
                self.record_path.write_text(json.dumps(record) + "\n", encoding="utf-8")
            except OSError as exc:  # a record is a convenience; the launcher's signal does the work
                log.warning("could not record the temporary Prefect server in %s: %s", self.record_path, exc)

        def stop(self) -> None:
            super().stop()
            if self.record_path is not None:
                try:
                    self.record_path.unlink()
                except FileNotFoundError:
                    pass

    return TiedServer


def start_temporary_server(data_dir: Path) -> str | None:
    """Before a flow runs: reap a server a killed run left in ``data_dir``, then, unless an API is
    configured, start this run's temporary server tied to this process. Returns its API URL (None
    when an API is configured). Call from the main thread: the kernel's signal follows the thread
    that started the server."""
    from prefect.settings import PREFECT_API_URL

    data_dir = Path(data_dir)
    reap_stale_server(data_dir)
    if PREFECT_API_URL.value():
        return None
    tied = _tied_server_class()
    # Prefect keeps one temporary server per process and hands it to whoever asks: created here
    # first, it is this one, and the flow's own request for a server finds it running.
    server = tied()
    if server.running or not isinstance(server, tied):  # one was already up in this process
        return server.api_url if server.running else None
    data_dir.mkdir(parents=True, exist_ok=True)
    server.record_path = data_dir / RECORD_NAME
    server.start()
    return server.api_url
