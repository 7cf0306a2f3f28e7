"""What the rental sources add to the offline run (`gpuvalue run --replay`), measured in one run.

One child process runs the replay flow with the default sources (the four rental sources among
them), then, warm, times each piece of work the rental sources add, one after another:

- fetch + parse: every rental source through the replay client (the flow runs them on threads beside the
  other sources, so this serial figure is an upper bound of what they add to the wall time);
- load: the rental load stage as the flow timed it (offers, then rental_prices_daily rebuilt),
  and again on a copy of the warehouse (the same dates replace themselves);
- checks: the three rental integrity checks;
- exports: the rental file set and the feed item.

The sum is set against the flow's own wall time in the same run: the delta, and its ratio.

    uv run python bench/bench_rental.py
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from datetime import date, datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import bench_arguments, emit, run_child  # noqa: E402

REPLAY_DATE = "2026-11-30"
TARGET_S = 2.0


def rental_costs(db: Path, work: Path) -> dict[str, float]:
    """Seconds of each piece of the rental sources' work, on a copy of the replay warehouse ``db``."""
    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows import stages as S
    from gpuvalue.flows.settings import Settings
    from gpuvalue.scrapers import registry
    from gpuvalue.warehouse.checks import check_files
    from gpuvalue.warehouse.db import open_database
    from gpuvalue.warehouse.outputs.rental_export import add_rental_item, export_rental
    from gpuvalue.warehouse.sql_files import split_statements

    from gpuvalue.models.cloud_names import match_cloud_gpu

    match_cloud_gpu.cache_clear()  # as cold as the run's own parse: its memo must not flatter the figure
    work.mkdir(parents=True, exist_ok=True)
    copy = work / "rental-bench.duckdb"
    shutil.copy(db, copy)
    settings = Settings(db=copy)
    names = registry.names(kind="rental")

    t0 = time.perf_counter()
    batches = {}
    for name in names:
        fetched = P.fetch_source(name, settings, replay=True)
        batches[name] = [registry.get(name).parse_pages(fetched.pages)]
    fetch_parse = time.perf_counter() - t0

    con = open_database(copy)
    try:
        ctx = S.StageContext(con=con, settings=settings, loaded_at=datetime.now(timezone.utc))
        result = S.StageResult()
        t0 = time.perf_counter()
        S._store_kinds(ctx, "load", batches, result)
        load_s = time.perf_counter() - t0
        if result.failed:
            raise RuntimeError(f"rental load failed: {result.failed}")
        t0 = time.perf_counter()
        for check, text in check_files().items():
            if check.startswith("rental_"):
                (stmt,) = split_statements(text)
                con.execute(stmt).fetchall()
        checks_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        export_rental(con, work / "exports")
        add_rental_item(con, {"items": []})
        export_s = time.perf_counter() - t0
        offers = con.execute("SELECT count(*) FROM rental_offers").fetchone()[0]
    finally:
        con.close()
    return {"fetch_parse": fetch_parse, "load": load_s, "checks": checks_s, "export": export_s,
            "total": fetch_parse + load_s + checks_s + export_s, "offers": offers}


def child(db: str) -> None:
    from gpuvalue.flows.daily import daily_flow

    t0 = time.perf_counter()
    summary = daily_flow(as_of=date.fromisoformat(REPLAY_DATE), replay=True, db=db)
    flow_s = time.perf_counter() - t0
    from gpuvalue.scrapers import registry

    rental = set(registry.names(kind="rental"))
    in_flow_load = sum(o.seconds for n, o in summary.outcomes.items() if n in rental)
    costs = rental_costs(Path(db), Path(db).parent / "rental")
    emit(seconds=costs["total"], flow=round(flow_s, 2), in_flow_load=round(in_flow_load, 3),
         **{k: round(v, 3) for k, v in costs.items()}, failed=summary.failed)


def main(argv: list[str] | None = None) -> list[str]:
    # --quick: the replay is the same size either way
    ap = bench_arguments()
    args = ap.parse_args(argv)
    if args.child:
        child(*args.rest)
        return []
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-rental-"))
    try:
        os.environ.update({"PREFECT_HOME": str(tmp / "prefect"), "DO_NOT_TRACK": "1",
                           "PREFECT_SERVER_ANALYTICS_ENABLED": "false", "PREFECT_LOGGING_LEVEL": "WARNING"})
        os.environ.pop("PREFECT_API_URL", None)
        m = run_child("replay run, then its rental work timed", "bench_rental", str(tmp / "g.duckdb"))
        i = m.info
        if i.get("failed"):
            raise RuntimeError(f"sources failed: {i['failed']}")
        total, flow = i["total"], i["flow"]
        return [
            f"[rental] replay flow {flow:.2f} s (default sources, rental ones included); {i['offers']:,} rental offers stored",
            f"[rental]   fetch+parse {i['fetch_parse']:.3f} s (serial; the flow runs it beside the other sources)",
            f"[rental]   load        {i['load']:.3f} s on a copy; {i['in_flow_load']:.3f} s as the flow timed it",
            f"[rental]   checks      {i['checks']:.3f} s   exports {i['export']:.3f} s",
            f"[rental] added by the rental sources: {total:.2f} s = {100 * total / flow:.1f}% of the flow "
            f"(target < {TARGET_S:g} s: {'met' if total < TARGET_S else 'NOT met'})",
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
