"""Run one benchmark variant in a child process and read its wall time and peak memory.

Each variant is a fresh interpreter, so one variant's caches and arenas never inflate another's
peak: os.wait4 returns the child's own resource usage (ru_maxrss, KiB on Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@dataclass
class Measured:
    name: str
    seconds: float  # wall time of the child's timed section (or the whole child)
    peak_mb: float  # peak resident memory of the child process
    info: dict

    def line(self) -> str:
        extra = " ".join(f"{k}={v}" for k, v in self.info.items() if k != "seconds")
        return f"{self.name:<44} {self.seconds:9.2f} s  peak {self.peak_mb:7.0f} MB  {extra}"


def run_child(name: str, module: str, *args: str) -> Measured:
    """Run ``python bench/<module>.py --child args...``; the child prints one JSON line with 'seconds'."""
    cmd = [sys.executable, str(REPO / "bench" / f"{module}.py"), "--child", *args]
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, cwd=REPO)
    # communicate() would reap the child and lose its rusage; read the pipes, then wait4.
    out, err = proc.stdout.read(), proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{name} failed ({proc.returncode}):\n{err.decode(errors='replace')[-3000:]}")
    lines = [ln for ln in out.decode().splitlines() if ln.startswith("{")]
    info = json.loads(lines[-1]) if lines else {}
    return Measured(name, float(info.get("seconds", wall)), usage.ru_maxrss / 1024, info)


def bench_arguments() -> argparse.ArgumentParser:
    """The arguments every benchmark takes: --quick (a smaller input) and --child ARGS..., with which
    run_child starts one variant in a process of its own. A benchmark adds its own to these."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("rest", nargs="*")
    return ap


def emit(**info) -> None:
    """What a child prints for its parent: one JSON line."""
    print(json.dumps(info, default=str), flush=True)


def machine() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem_gb = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    import duckdb

    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": round(mem_gb, 1),
            "python": platform.python_version(), "duckdb": duckdb.__version__}


def run_command(name: str, cmd: list[str], env: dict | None = None) -> Measured:
    """Wall time and peak memory of an arbitrary command (its own process, not its children)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env or dict(os.environ), cwd=REPO)
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t0
    return Measured(name, wall, usage.ru_maxrss / 1024, {"exit": code, "stderr_tail": err.decode(errors="replace")[-200:].strip().splitlines()[-1:] if code else []})
