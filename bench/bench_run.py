"""The whole offline run (`gpuvalue run --replay`): wall time, peak memory, time per stage;
then the next day's run on the same warehouse, which reuses the spec estimate's stored
cross-validated error (table perf_estimate_cv), against the first run's estimate stage.

    uv run python bench/bench_run.py [--runs 3]

The CLI runs ``--runs`` times on an empty database and a fresh Prefect home (the median is the
figure); each run is split by the timestamps of Prefect's own log lines into: start-up (the
interpreter, imports and, at the same time, the start of the run's temporary Prefect server, until
the flow run begins), the flow, and the rest (printing, exiting, stopping the server).
"""

from __future__ import annotations

import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import bench_arguments, emit, run_child  # noqa: E402

REPLAY_DATE = "2026-11-30"
NEXT_DATE = "2026-12-01"


def child(db: str, day: str = REPLAY_DATE) -> None:
    """The flow on the temporary server `gpuvalue run` starts (not Prefect's own, whose migrations on
    a fresh home outlast its 20 s start-up timeout on a busy machine), ready before the clock starts."""
    from prefect.settings import PREFECT_API_URL, temporary_settings

    from gpuvalue.flows import prefect_server
    from gpuvalue.flows.daily import daily_flow

    server = prefect_server.launch_temporary_server()
    api_url = prefect_server.adopt(server, Path(db).parent)
    t0 = time.perf_counter()
    with temporary_settings(updates={PREFECT_API_URL: api_url}):
        summary = daily_flow(as_of=date.fromisoformat(day), replay=True, db=db)
    emit(seconds=time.perf_counter() - t0, ranked=summary.ranked,
         stages={k: round(v, 2) for k, v in summary.stage_seconds.items()},
         failed=summary.failed)


_LOG_LINE = r"^(\d\d):(\d\d):(\d\d\.\d+) \| \w+ +\| "
MARKS = {  # Prefect's own INFO lines, in the order a run writes them
    "flow_begins": r"Flow run '[^']+' - Beginning flow run",
    "flow_finished": r"Flow run '[^']+' - Finished in state",
}


def cli_timeline(stderr: str, started: datetime, seconds: float) -> dict[str, float] | None:
    """A CLI run's wall time split at Prefect's log lines (None when a line is missing)."""
    at = {}
    for mark, pattern in MARKS.items():
        found = re.search(_LOG_LINE + pattern, stderr, re.MULTILINE)
        if not found:
            return None
        h, m, s = found.groups()
        offset = int(h) * 3600 + int(m) * 60 + float(s) - (started.hour * 3600 + started.minute * 60 + started.second
                                                          + started.microsecond / 1e6)
        at[mark] = offset + 86400 if offset < -3600 else offset  # a run across midnight
    return {
        "start-up and temporary server": at["flow_begins"],
        "flow": at["flow_finished"] - at["flow_begins"],
        "stop and exit": seconds - at["flow_finished"],
    }


def run_cli(db: Path, env: dict) -> tuple[float, float, dict[str, float] | None, int]:
    """One ``gpuvalue run --replay``: wall seconds, peak MB of the CLI process, its timeline, exit code."""
    cmd = [str(Path(sys.executable).parent / "gpuvalue"), "run", "--replay", "--date", REPLAY_DATE, "--db", str(db)]
    started, t0 = datetime.now(), time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    err = proc.stderr.read().decode(errors="replace")
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - t0
    return seconds, usage.ru_maxrss / 1024, cli_timeline(err, started, seconds), os.waitstatus_to_exitcode(status)


def main(argv: list[str] | None = None) -> list[str]:
    ap = bench_arguments()
    ap.add_argument("--runs", type=int, default=3, help="CLI runs on an empty database (the median is reported)")
    args = ap.parse_args(argv)
    if args.child:
        child(*args.rest)
        return []
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        env = {**os.environ, "PREFECT_HOME": str(tmp / "prefect"), "DO_NOT_TRACK": "1",
               "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING"}
        env.pop("PREFECT_API_URL", None)
        os.environ.update({k: env[k] for k in ("PREFECT_HOME", "DO_NOT_TRACK", "PREFECT_SERVER_ANALYTICS_ENABLED")})
        out = []
        runs = []
        for i in range(args.runs):  # each on an empty database and a fresh Prefect home, as a first run is
            cli_env = {**env, "PREFECT_HOME": str(tmp / f"prefect-cli-{i}"), "PREFECT_LOGGING_LEVEL": "INFO"}
            seconds, peak, timeline, code = run_cli(tmp / f"cli-{i}" / "g.duckdb", cli_env)
            runs.append(seconds)
            split = ", ".join(f"{k} {v:.1f} s" for k, v in (timeline or {}).items())
            out.append(f"[run] gpuvalue run --replay (CLI) #{i + 1}: {seconds:.1f} s, peak {peak:.0f} MB, exit {code}"
                       + (f": {split}" if split else ""))
        out.append(f"[run] gpuvalue run --replay (CLI), median of {len(runs)}: {statistics.median(runs):.1f} s "
                   "(target <= 30 s on 2 cores)")
        flow = run_child("daily_flow(replay=True) in-process", "bench_run", str(tmp / "flow" / "g.duckdb"))
        out.append("[run] " + flow.line().split(" stages=")[0])
        stages = flow.info.get("stages", {})
        total = flow.seconds
        for name, sec in sorted(stages.items(), key=lambda kv: -kv[1]):  # the flow's StageTimer names
            out.append(f"[run]   stage {name:<12} {sec:7.2f} s  {100 * sec / total:5.1f}% of the flow")
        out.append(f"[run]   outside stages (Prefect start-up, task orchestration, artifacts) "
                   f"{total - sum(stages.values()):.2f} s")
        again = run_child("next day, same warehouse", "bench_run", str(tmp / "flow" / "g.duckdb"), NEXT_DATE)
        first, reused = stages.get("estimate", 0.0), again.info.get("stages", {}).get("estimate", 0.0)
        out.append(f"[run] estimate stage: first run {first:.2f} s (the cross-validated error shipped for the replay's "
                   f"inputs), next day {reused:.2f} s (the warehouse's stored row); next day's flow {again.seconds:.2f} s")
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
