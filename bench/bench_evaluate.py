"""`gpuvalue perf --evaluate` as a whole process: the first answer (the nested cross-validations,
computed) against the next one on the same inputs (read from the cache beside the database).

    uv run python bench/bench_evaluate.py

Both run the CLI on the same empty database folder; each is timed as wall and CPU (user + sys of
the process): the first run's (target under 30 s on 2 cores), the second's and their ratio.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import bench_arguments  # noqa: E402


def run_cli(db: Path) -> tuple[float, float, float, str]:
    """One ``gpuvalue perf --evaluate``: wall seconds, CPU seconds, peak MB, its output."""
    cmd = [str(Path(sys.executable).parent / "gpuvalue"), "perf", "--evaluate", "--db", str(db)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = proc.stdout.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"perf --evaluate failed:\n{out[-2000:]}")
    return time.perf_counter() - t0, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def main(argv: list[str] | None = None) -> list[str]:
    bench_arguments().parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        db = tmp / "g.duckdb"
        first, first_cpu, first_mb, first_out = run_cli(db)
        again, again_cpu, again_mb, again_out = run_cli(db)
        same = "same tables" if first_out == again_out else "TABLES DIFFER"
        return [
            f"[evaluate] perf --evaluate, computed: {first:.1f} s wall, {first_cpu:.1f} s CPU, peak {first_mb:.0f} MB "
            f"(target under 30 s on 2 cores)",
            f"[evaluate] perf --evaluate, cached: {again:.1f} s wall, {again_cpu:.1f} s CPU, peak {again_mb:.0f} MB "
            f"({same})",
            f"[evaluate] cached / computed: {again / first:.3f}",
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
