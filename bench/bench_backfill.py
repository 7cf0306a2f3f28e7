"""Materializing the ranking over a synthetic year: set-based backfill vs pandas, and the daily step.

    uv run python bench/bench_backfill.py [--quick]
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import bench_arguments, emit, run_child  # noqa: E402
from bench.synth import FULL, QUICK, REFERENCE, build  # noqa: E402

WINDOW, MIN_COUNT, PRECISION = 30, 3, "fp16"

OBS_SQL = """
SELECT model, 'sold' AS kind, CAST(sold_at AS DATE) AS obs_date, total_usd AS usd FROM listings
WHERE sold AND model IS NOT NULL AND total_usd > 0 AND coalesce(quantity, 1) = 1
  AND condition_class IN ('used', 'refurbished', 'open_box') AND sold_at IS NOT NULL
UNION ALL
SELECT l.model, 'asking', s.seen_date, s.total_usd FROM listing_snapshots AS s JOIN listings AS l USING (source, listing_id)
WHERE NOT l.sold AND l.model IS NOT NULL AND s.total_usd > 0 AND coalesce(l.quantity, 1) = 1
  AND l.condition_class IN ('used', 'refurbished', 'open_box') AND l.buying_option NOT LIKE '%AUCTION%'
"""


# ---- children ----------------------------------------------------------------------------------

def child_sql_backfill(db: str, start: date, end: date) -> None:
    from gpuvalue.warehouse.backfill import backfill
    from gpuvalue.warehouse.db import open_database

    con = open_database(db)
    t0 = time.perf_counter()
    n = backfill(con, start, end, precision=PRECISION, reference=REFERENCE, window_days=WINDOW, min_count=MIN_COUNT)
    emit(seconds=time.perf_counter() - t0, ranking_rows=n)


def child_sql_daily(db: str, day: date) -> None:
    from gpuvalue.warehouse.db import open_database
    from gpuvalue.warehouse.load import materialize_day

    con = open_database(db)
    t0 = time.perf_counter()
    n = materialize_day(con, day, precision=PRECISION, reference=REFERENCE, window_days=WINDOW, min_count=MIN_COUNT)
    emit(seconds=time.perf_counter() - t0, ranking_rows=n)


def pandas_day(obs, perf, as_of):
    """prices_daily.sql + ranking.sql for one day, the plain pandas way."""
    import numpy as np
    import pandas as pd

    upto = obs[obs["obs_date"] <= as_of]
    newest = upto.groupby(["model", "kind"], observed=True)["obs_date"].max().rename("last_date").reset_index()
    cutoff = as_of - pd.Timedelta(days=WINDOW)
    newest["anchor"] = np.where(newest["last_date"] > cutoff, as_of, newest["last_date"])
    w = upto.merge(newest[["model", "kind", "anchor"]], on=["model", "kind"])
    w = w[(w["obs_date"] <= w["anchor"]) & (w["obs_date"] > w["anchor"] - pd.Timedelta(days=WINDOW))].copy()
    w["lp"] = np.log(w["usd"])
    g = w.groupby(["model", "kind"], observed=True)["lp"]
    w["med"] = g.transform("median")
    w["dev"] = (w["lp"] - w["med"]).abs()
    w["tol"] = np.maximum(3 * 1.4826 * w.groupby(["model", "kind"], observed=True)["dev"].transform("median"), np.log(1.5))
    kept = w[w["dev"] <= w["tol"]]
    gk = kept.groupby(["model", "kind"], observed=True)
    stats = gk.agg(n=("usd", "size"), med_usd=("usd", "median"), price_as_of=("obs_date", "max"))
    stats["q1"] = gk["usd"].quantile(0.25)
    stats["q3"] = gk["usd"].quantile(0.75)
    stats = stats[stats["n"] >= MIN_COUNT].reset_index()
    stats["fresh"] = stats["price_as_of"] > cutoff
    stats["is_sold"] = stats["kind"] == "sold"
    stats = stats.sort_values(["model", "fresh", "is_sold", "price_as_of"], ascending=[True, False, False, False])
    prices = stats.drop_duplicates("model").copy()
    prices["price_usd"] = np.where(prices["is_sold"], prices["med_usd"], prices["q1"]).round(2)
    r = prices.merge(perf, on="model")
    r = r[r["price_usd"] > 0]
    r["perf_per_dollar"] = (r["relative_perf"] / r["price_usd"] * 1000).round(4)
    r["score"] = r["relative_perf"] / r["price_usd"]
    r = r.sort_values(["score", "model"], ascending=[False, True])
    r["rank"] = range(1, len(r) + 1)
    r["as_of"] = as_of
    return r


def child_pandas(db: str, start: date, end: date, every: int) -> None:
    import duckdb
    import pandas as pd

    t0 = time.perf_counter()
    con = duckdb.connect(db, read_only=True)
    obs = con.execute(OBS_SQL).df()
    perf = con.execute(
        f"""
        WITH best AS (SELECT *, row_number() OVER (PARTITION BY model ORDER BY measured DESC, (source = 'local') DESC,
                      coalesce(workloads, 0) DESC, source) AS pick FROM perf WHERE precision = '{PRECISION}')
        SELECT b.model, b.relative_perf / (SELECT relative_perf FROM best WHERE model = '{REFERENCE}' AND pick = 1)
               AS relative_perf
        FROM best AS b JOIN gpus AS g USING (model) WHERE b.pick = 1 AND coalesce(g.released, true)
        """
    ).df()
    con.close()
    obs["model"] = obs["model"].astype("category")
    obs["obs_date"] = pd.to_datetime(obs["obs_date"])
    load_s = time.perf_counter() - t0
    days = [start + timedelta(days=i) for i in range(0, (end - start).days + 1)]
    sample = days[::every]
    rows = 0
    t1 = time.perf_counter()
    for d in sample:
        rows += len(pandas_day(obs, perf, pd.Timestamp(d)))
    per_day = (time.perf_counter() - t1) / len(sample)
    emit(seconds=load_s + per_day * len(days), load_s=round(load_s, 2), per_day_s=round(per_day, 3),
         days_timed=len(sample), days=len(days), extrapolated=every > 1, ranking_rows_timed=rows)


# ---- parent ------------------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> list[str]:
    ap = bench_arguments()
    args = ap.parse_args(argv)
    if args.child:
        kind, db, *dates = args.rest
        if kind == "synth":
            spec = QUICK if dates[0] == "quick" else FULL
            emit(seconds=build(Path(db), spec))
        elif kind == "sql-backfill":
            child_sql_backfill(db, date.fromisoformat(dates[0]), date.fromisoformat(dates[1]))
        elif kind == "sql-daily":
            child_sql_daily(db, date.fromisoformat(dates[0]))
        else:
            child_pandas(db, date.fromisoformat(dates[0]), date.fromisoformat(dates[1]), int(dates[2]))
        return []

    spec = QUICK if args.quick else FULL
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        db = tmp / "synth.duckdb"
        # Generated in a child: a forked child starts with its parent's peak resident set, so a
        # parent that had built the history itself would inflate every later variant's peak.
        gen_s = run_child("synthetic history", "bench_backfill", "synth", str(db), "quick" if args.quick else "full").seconds
        out = [f"[backfill] synthetic history: {spec.n_models} models, {spec.days} days, "
               f"{spec.n_listings:,} listings, generated in {gen_s:.1f} s"]
        s, e = spec.start, spec.end
        backfill = run_child("SQL backfill, every day (set-based)", "bench_backfill", "sql-backfill", str(db), str(s), str(e))
        daily = run_child("SQL daily step, today only", "bench_backfill", "sql-daily", str(db), str(e))
        every = 1 if args.quick else 15
        pandas = run_child(f"pandas, every day{' (sampled 1 day in %d, extrapolated)' % every if every > 1 else ''}",
                           "bench_backfill", "pandas", str(db), str(s), str(e), str(every))
        for m in (pandas, backfill, daily):
            out.append("[backfill] " + m.line())
        out.append(f"[backfill] backfill speed-up over pandas: {pandas.seconds / backfill.seconds:.1f}x (target >= 10x)")
        out.append(f"[backfill] daily step / full backfill: {100 * daily.seconds / backfill.seconds:.2f}% (target <= 1%)")
        out.append(f"[backfill] peak memory of the backfill: {backfill.peak_mb:.0f} MB (target <= 1536 MB)")
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
