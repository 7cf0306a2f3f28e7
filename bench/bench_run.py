"""The whole offline run (`gpuvalue run --replay`): wall time, peak memory, time per stage;
then the next day's run on the same warehouse, which reuses the spec estimate's stored
cross-validated error (table perf_estimate_cv), against the first run's estimate stage.

    uv run python bench/bench_run.py
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import emit, run_child, run_command  # noqa: E402

REPLAY_DATE = "2026-11-30"
NEXT_DATE = "2026-12-01"


def child(db: str, day: str = REPLAY_DATE) -> None:
    from gpuvalue.flows.daily import daily_flow

    t0 = time.perf_counter()
    summary = daily_flow(as_of=date.fromisoformat(day), replay=True, db=db)
    emit(seconds=time.perf_counter() - t0, ranked=summary.ranked,
         stages={k: round(v, 2) for k, v in summary.stage_seconds.items()},
         failed=summary.failed)


def main(argv: list[str] | None = None) -> list[str]:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("rest", nargs="*")
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
        cli = run_command("gpuvalue run --replay (CLI, whole process)",
                          [str(Path(sys.executable).parent / "gpuvalue"), "run", "--replay", "--date", REPLAY_DATE,
                           "--db", str(tmp / "cli" / "g.duckdb")], env)
        flow = run_child("daily_flow(replay=True) in-process", "bench_run", str(tmp / "flow" / "g.duckdb"))
        out = ["[run] " + cli.line(), "[run] " + flow.line().split(" stages=")[0]]
        stages = flow.info.get("stages", {})
        total = flow.seconds
        # catalog, match, estimate and rank run inside the load stage: shown indented under it.
        inner = ("catalog", "match", "estimate", "rank")
        for name, s in sorted(stages.items(), key=lambda kv: -kv[1]):
            if name in inner:
                continue
            label = f"{name} (all)" if name == "load" else name
            out.append(f"[run]   stage {label:<14} {s:7.2f} s  {100 * s / total:5.1f}% of the flow")
            if name == "load":
                for sub in sorted((k for k in stages if k in inner), key=lambda k: -stages[k]):
                    out.append(f"[run]     of which {sub:<10} {stages[sub]:7.2f} s  {100 * stages[sub] / total:5.1f}% of the flow")
                rest = s - sum(stages.get(k, 0.0) for k in inner)
                out.append(f"[run]     of which writing  {rest:7.2f} s  {100 * rest / total:5.1f}% of the flow")
        out.append(f"[run]   outside stages (Prefect start-up, task orchestration, artifacts) "
                   f"{total - sum(v for k, v in stages.items() if k in ('fetch+parse', 'archive', 'load', 'export')):.2f} s")
        again = run_child("next day, same warehouse", "bench_run", str(tmp / "flow" / "g.duckdb"), NEXT_DATE)
        first, reused = stages.get("estimate", 0.0), again.info.get("stages", {}).get("estimate", 0.0)
        out.append(f"[run] next day on the same warehouse: flow {again.seconds:.2f} s, estimate stage {reused:.2f} s "
                   f"= {100 * reused / first if first else 0:.0f}% of the first run's {first:.2f} s "
                   "(stored cross-validated error reused)")
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
