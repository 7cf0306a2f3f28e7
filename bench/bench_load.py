"""Loading parsed listings through the project's load path vs a raw Arrow insert and executemany.

    uv run python bench/bench_load.py [--quick]
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import emit, run_child  # noqa: E402

EXECUTEMANY_SAMPLE = 5_000


def listing_table(n: int):
    """n rows shaped like flows.pipeline.listing_rows output (LISTING_SCHEMA), built in DuckDB."""
    import duckdb

    from gpuvalue.warehouse.load import LISTING_SCHEMA

    con = duckdb.connect()
    cur = con.execute(
        """
        SELECT 'ebay-html' AS source, 'v1|' || CAST(1000000000 + i AS VARCHAR) || '|0' AS listing_id,
               'NVIDIA GeForce RTX 3090 Founders Edition 24GB GDDR6X Graphics Card #' || CAST(i % 997 AS VARCHAR) AS title,
               CASE WHEN i % 3 = 0 THEN 'Tested, works great' END AS subtitle,
               round(500 + (i % 1000) * 0.77, 2) AS price, CASE WHEN i % 2 = 0 THEN 0.0 ELSE 19.99 END AS shipping,
               'USD' AS currency, round(500 + (i % 1000) * 0.77, 2) AS total_usd, 'identity' AS fx_source,
               'Pre-Owned' AS condition, 'used' AS condition_class, 'FIXED_PRICE' AS buying_option,
               CAST(NULL AS INTEGER) AS bid_count, CAST(1 AS INTEGER) AS quantity, i % 4 = 0 AS sold,
               CASE WHEN i % 4 = 0 THEN TIMESTAMP '2026-11-29 10:00:00' END AS sold_at,
               TIMESTAMP '2026-11-30 06:00:00' AS first_seen, TIMESTAMP '2026-11-30 06:00:00' AS last_seen,
               CASE WHEN i % 4 = 0 THEN 'sold' ELSE 'active' END AS status,
               'https://www.ebay.com/itm/' || CAST(1000000000 + i AS VARCHAR) AS url, 'EBAY_US' AS marketplace,
               'GeForce RTX 3090' AS model, 'model: RTX 3090' AS match_reason
        FROM range($n) AS r(i)
        """,
        {"n": n},
    )
    t = cur.to_arrow_table() if hasattr(cur, "to_arrow_table") else cur.fetch_arrow_table()
    return t.cast(LISTING_SCHEMA)


def _fresh(db: str):
    from gpuvalue.warehouse.db import open_database

    return open_database(db)


def child(kind: str, db: str, n: int) -> None:
    from gpuvalue.warehouse import load

    table = listing_table(n)
    con = _fresh(db)
    if kind == "project-dicts":
        rows = table.to_pylist()  # what the flow hands over: a list of dicts
        t0 = time.perf_counter()
        with load.transaction(con):
            load.load_listings(con, rows)
    elif kind == "project-arrow":
        t0 = time.perf_counter()
        with load.transaction(con):
            load.load_listings(con, table)
    elif kind == "arrow-insert":
        t0 = time.perf_counter()
        con.register("incoming", table)
        con.execute("INSERT INTO listings BY NAME SELECT * FROM incoming")
    else:  # executemany, row by row
        cols = table.column_names
        rows = [tuple(r[c] for c in cols) for r in table.to_pylist()]
        t0 = time.perf_counter()
        con.execute("BEGIN TRANSACTION")
        con.executemany(f"INSERT INTO listings ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", rows)
        con.execute("COMMIT")
    seconds = time.perf_counter() - t0
    assert con.execute("SELECT count(*) FROM listings").fetchone()[0] == n
    emit(seconds=seconds, rows=n, rows_per_s=round(n / seconds))


def main(argv: list[str] | None = None) -> list[str]:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--child", action="store_true")
    ap.add_argument("rest", nargs="*")
    args = ap.parse_args(argv)
    if args.child:
        child(args.rest[0], args.rest[1], int(args.rest[2]))
        return []
    n = 100_000 if args.quick else 1_000_000
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        res = {}
        for kind, label, rows in (("arrow-insert", "raw Arrow INSERT (floor)", n),
                                  ("project-dicts", "load_listings, list of dicts (as the flow)", n),
                                  ("project-arrow", "load_listings, Arrow table", n),
                                  ("executemany", f"executemany row by row ({EXECUTEMANY_SAMPLE:,} rows)", EXECUTEMANY_SAMPLE)):
            res[kind] = run_child(label, "bench_load", kind, str(tmp / f"{kind}.duckdb"), str(rows))
        out = [f"[load] {n:,} listing rows into an empty warehouse"]
        for m in res.values():
            out.append("[load] " + m.line())
        floor = res["arrow-insert"].info["rows_per_s"]
        em = res["executemany"].info["rows_per_s"]
        for kind in ("project-dicts", "project-arrow"):
            rps = res[kind].info["rows_per_s"]
            out.append(f"[load] {res[kind].name}: {rps:,} rows/s = {floor / rps:.1f}x slower than the floor, "
                       f"{rps / em:.0f}x faster than executemany (target >= 500,000 rows/s, within 10x of the floor)")
        out.append(f"[load] executemany extrapolated to {n:,} rows: {n / em:.0f} s (timed on {EXECUTEMANY_SAMPLE:,})")
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
