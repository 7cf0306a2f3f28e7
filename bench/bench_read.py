"""Answers in a blink: each reading command as a whole process against a bare Python process
running the same queries on the same warehouse, `perf --evaluate`'s time, and the replay's first
run on an empty database.

    uv run python bench/bench_read.py [--runs 5] [--quick]

The warehouse is the replay's (`gpuvalue run --replay`, timed as the first-run figure, on an empty
database and a fresh Prefect home). For each command, one in-process run records the statements it
sends to DuckDB (text and parameters); the baseline is then a bare `python` that imports duckdb,
opens the warehouse read-only and runs exactly those statements, fetching every row. Both are timed
as whole processes, ``--runs`` times alternately; the ratio is of the medians (target: at most 2x).
`--help` sends no statement: its baseline is the bare process opening the warehouse.
--quick leaves out `perf --evaluate` (about 20 s) and runs each pair three times.
"""

from __future__ import annotations

import os
import pickle
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import bench_arguments  # noqa: E402

REPLAY_DATE = "2026-11-30"
TARGET_RATIO = 2.0
TARGET_REPLAY_S = 15.0
TARGET_EVALUATE_S = 30.0
COMMANDS = {
    "rank": ["rank", "--top", "3"],
    "recommend": ["recommend", "--budget", "600", "--min-memory", "12"],
    "rent": ["rent", "--top", "5"],
    "perf": ["perf", "4090"],
    "gpus": ["gpus", "4090"],
    "sql": ["sql", "SELECT model, price_usd FROM ranking_latest ORDER BY rank LIMIT 5"],
    "coverage": ["coverage"],
    "--help": ["--help"],
}

RECORD = """
import pickle, sys
import gpuvalue.warehouse.db as db
log = []
class Recorded:
    def __init__(self, con): self._con = con
    def execute(self, query, parameters=None):
        log.append((query if isinstance(query, str) else query.query, parameters))  # sql passes Statement objects
        return self._con.execute(query, parameters) if parameters is not None else self._con.execute(query)
    def __getattr__(self, name): return getattr(self._con, name)
for name in ("open_database", "open_sandboxed_reader"):
    opened = getattr(db, name)
    setattr(db, name, lambda *a, _open=opened, **k: Recorded(_open(*a, **k)))
from gpuvalue.flows.cli import app
try:
    app(sys.argv[2:], standalone_mode=False)
except SystemExit:
    pass
with open(sys.argv[1], "wb") as fh:
    pickle.dump(log, fh)
"""

BARE = """
import pickle, sys
import duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
with open(sys.argv[2], "rb") as fh:
    statements = pickle.load(fh)
for query, parameters in statements:
    cur = con.execute(query, parameters) if parameters is not None else con.execute(query)
    if cur.description is not None:
        cur.fetchall()
"""


def _timed(cmd: list[str], env: dict, check: bool = True) -> float:
    return _measured(cmd, env, check)[0]


def _measured(cmd: list[str], env: dict, check: bool = True) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the process and its children) of one command."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if check and os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"{' '.join(cmd)[:200]} exited {os.waitstatus_to_exitcode(status)}")
    return wall, usage.ru_utime + usage.ru_stime


def replay_first_run(db: Path, env: dict) -> tuple[float, float]:
    cli = str(Path(sys.executable).parent / "gpuvalue")
    return _measured([cli, "run", "--replay", "--date", REPLAY_DATE, "--db", str(db)], env)


def read_ratios(db: Path, work: Path, env: dict, runs: int) -> list[str]:
    cli = str(Path(sys.executable).parent / "gpuvalue")
    out = []
    for name, args in COMMANDS.items():
        recorded = work / f"{name.strip('-')}.pickle"
        subprocess.run([sys.executable, "-c", RECORD, str(recorded), *args], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        statements = pickle.loads(recorded.read_bytes())
        bare_cmd = [sys.executable, "-c", BARE, str(db), str(recorded)]
        full_cmd = [cli, *args]
        _timed(full_cmd, env), _timed(bare_cmd, env)  # warm the file cache
        full, bare = [], []
        for _ in range(runs):
            full.append(_measured(full_cmd, env))
            bare.append(_measured(bare_cmd, env))
        wall = [statistics.median(x[0] for x in side) for side in (full, bare)]
        cpu = [statistics.median(x[1] for x in side) for side in (full, bare)]
        ratio = wall[0] / wall[1]
        # On a shared machine the wall ratio grows with the load; the CPU ratio stays what the work is.
        out.append(f"[read] gpuvalue {' '.join(args)[:48]:<48} {wall[0]:6.2f} s, bare python with its "
                   f"{len(statements)} statement(s) {wall[1]:5.2f} s: {ratio:4.2f}x wall, {cpu[0] / cpu[1]:4.2f}x CPU "
                   f"({cpu[0]:.2f} s vs {cpu[1]:.2f} s) ({'ok' if ratio <= TARGET_RATIO else 'over'} the "
                   f"{TARGET_RATIO:g}x target)")
    return out


def main(argv: list[str] | None = None) -> list[str]:
    ap = bench_arguments()
    ap.add_argument("--runs", type=int, default=5, help="timed runs of each command and its baseline")
    args = ap.parse_args(argv)
    runs = 3 if args.quick else args.runs
    work = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-read-"))
    try:
        env = {**os.environ, "PREFECT_HOME": str(work / "prefect"), "DO_NOT_TRACK": "1",
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "GPUVALUE_DB": str(work / "g.duckdb")}
        env.pop("PREFECT_API_URL", None)
        seconds, cpu = replay_first_run(work / "g.duckdb", env)
        out = [f"[read] gpuvalue run --replay, first run on an empty database: {seconds:.1f} s wall, {cpu:.1f} s CPU "
               f"(target <= {TARGET_REPLAY_S:g} s on 2 idle cores)"]
        out += read_ratios(work / "g.duckdb", work, env, runs)
        if not args.quick:
            t = _timed([str(Path(sys.executable).parent / "gpuvalue"), "perf", "--evaluate"], env, check=False)
            out.append(f"[read] gpuvalue perf --evaluate: {t:.1f} s (target < {TARGET_EVALUATE_S:g} s on 2 cores)")
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line, flush=True)
