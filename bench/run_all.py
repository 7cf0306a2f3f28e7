"""Every benchmark, one after another; each prints its figures and ratios to its own baseline.

    uv run python bench/run_all.py [--quick]

--quick scales the synthetic history and the load test down tenfold (about two minutes).
"""

from __future__ import annotations

import argparse
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_backfill, bench_evaluate, bench_import, bench_load, bench_parse, bench_read, bench_rental, bench_run  # noqa: E402
from bench.measure import machine  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    flags = ["--quick"] if args.quick else []
    m = machine()
    print(f"gpuvalue benchmarks, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC{' (quick)' if args.quick else ''}")
    print(f"machine: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM; Python {m['python']}, DuckDB {m['duckdb']}")
    t0 = time.perf_counter()
    for bench in (bench_parse, bench_import, bench_load, bench_backfill, bench_run, bench_rental, bench_evaluate, bench_read):
        for line in bench.main(flags):
            print(line, flush=True)
    print(f"all benchmarks: {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
