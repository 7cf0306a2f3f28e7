"""A synthetic used-market history for benchmarks: models, performance figures, listings, snapshots.

Generated entirely inside DuckDB (no Python loops), so ten million listings take seconds.
Prices follow a per-model level with a slow drift, log-normal noise and a few gross outliers
(boxes, bundles, typos), so the outlier rule has real work to do. Model popularity is skewed,
which leaves some models with too few sales for a price and some prices stale.

    uv run python bench/synth.py --out /tmp/synth.duckdb [--quick]
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import duckdb

from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.load import rebuild_price_observations

REFERENCE = "Synthetic GPU 000"


@dataclass(frozen=True)
class SynthSpec:
    n_models: int = 300
    days: int = 365
    n_listings: int = 10_000_000
    end: date = date(2026, 11, 30)
    seed: float = 0.42

    @property
    def start(self) -> date:
        return self.end - timedelta(days=self.days - 1)

    def scaled(self, factor: float) -> SynthSpec:
        return SynthSpec(self.n_models, self.days, int(self.n_listings * factor), self.end, self.seed)


FULL = SynthSpec()
QUICK = FULL.scaled(0.1)


def _drop_upsert_keys(con: duckdb.DuckDBPyConnection) -> None:
    """Same columns and types, no primary keys: the keys serve upserts, which a bulk history never does,
    and maintaining them would make generation ten times slower than the runs it feeds."""
    for table in ("listing_snapshots", "listings"):
        con.execute(f"CREATE TABLE {table}_bulk AS SELECT * FROM {table} LIMIT 0")
        con.execute(f"DROP TABLE {table}")
        con.execute(f"ALTER TABLE {table}_bulk RENAME TO {table}")


def generate(con: duckdb.DuckDBPyConnection, spec: SynthSpec) -> None:
    """Fill an empty warehouse (schema already migrated) with the synthetic history."""
    _drop_upsert_keys(con)
    p = {"n_models": spec.n_models, "days": spec.days, "n": spec.n_listings, "start": spec.start, "ref": REFERENCE}
    con.execute("SELECT setseed(?)", [spec.seed])
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE synth_models AS
        SELECT i AS m, 'Synthetic GPU ' || lpad(CAST(i AS VARCHAR), 3, '0') AS model,
               exp(ln(150) + random() * ln(40)) AS level,          -- 150 .. 6000 USD
               (random() - 0.6) * 0.6 AS drift,                    -- log change over the year
               0.2 + random() * 3 AS perf
        FROM range($n_models) AS r(i)
        """,
        {"n_models": p["n_models"]},
    )
    con.execute(
        """
        INSERT INTO gpus (model, vendor, architecture, segment, release_date, released, memory_gb, bandwidth_gb_s,
                          tdp_w, framework_supported, desktop_usable, provenance, updated_at)
        SELECT model, CASE WHEN m % 4 = 0 THEN 'AMD' ELSE 'NVIDIA' END, 'Synthetic', 'desktop', DATE '2020-01-01',
               m % 50 <> 7, 8 + (m % 5) * 4, 200 + m * 3, 150 + m % 300, true, true, '{}', TIMESTAMP '2026-01-01'
        FROM synth_models
        """
    )
    con.execute(
        """
        INSERT INTO perf (model, precision, source, relative_perf, method, reference, measured, workloads, loaded_at)
        SELECT model, 'fp16', 'estimate', perf, 'synthetic', $ref, false, 0, TIMESTAMP '2026-01-01' FROM synth_models
        UNION ALL
        SELECT model, 'fp16', 'lambda-synthetic', perf * 1.05, 'synthetic measured', $ref, true, 9, TIMESTAMP '2026-01-01'
        FROM synth_models WHERE m % 3 = 0
        """,
        {"ref": p["ref"]},
    )
    con.execute(
        """
        CREATE OR REPLACE TEMP TABLE synth_listings AS
        WITH draws AS (
            SELECT i, least(CAST(floor($n_models * pow(random(), 1.6)) AS INTEGER), $n_models - 1) AS m,
                   CAST(floor(random() * $days) AS INTEGER) AS day, random() AS u_kind, random() AS u_out,
                   random() AS u_cond, sqrt(-2 * ln(random() + 1e-12)) * cos(2 * pi() * random()) AS z
            FROM range($n) AS r(i)
        )
        SELECT d.i, s.model, d.day, CAST($start AS DATE) + d.day AS obs_date,
               d.u_kind < 0.65 AS sold,
               CASE WHEN d.u_kind >= 0.95 THEN 'AUCTION' ELSE 'FIXED_PRICE' END AS buying_option,
               CASE WHEN d.u_cond < 0.85 THEN 'used' WHEN d.u_cond < 0.92 THEN 'new'
                    WHEN d.u_cond < 0.97 THEN 'refurbished' ELSE 'parts' END AS condition_class,
               round(s.level * exp(s.drift * d.day / $days + 0.12 * d.z)
                     * CASE WHEN d.u_out < 0.015 THEN 0.12 WHEN d.u_out > 0.99 THEN 4.0 ELSE 1.0 END, 2) AS usd
        FROM draws AS d JOIN synth_models AS s USING (m)
        """,
        {"n_models": p["n_models"], "days": p["days"], "n": p["n"], "start": p["start"]},
    )
    con.execute(
        """
        INSERT INTO listings (source, listing_id, title, price, shipping, currency, total_usd, fx_source, condition,
                              condition_class, buying_option, quantity, sold, sold_at, first_seen, last_seen, status,
                              marketplace, model, match_reason)
        SELECT 'synthetic', CAST(i AS VARCHAR), model, usd, 0, 'USD', usd, 'identity', condition_class,
               condition_class, buying_option, 1, sold,
               CASE WHEN sold THEN CAST(obs_date AS TIMESTAMP) + INTERVAL 12 HOUR END,
               CAST(obs_date AS TIMESTAMP), CAST(obs_date AS TIMESTAMP) + INTERVAL 12 HOUR,
               CASE WHEN sold THEN 'sold' ELSE 'active' END, 'EBAY_US', model, 'synthetic'
        FROM synth_listings
        """
    )
    con.execute(
        """
        INSERT INTO listing_snapshots (source, listing_id, seen_date, price, shipping, currency, total_usd)
        SELECT 'synthetic', CAST(i AS VARCHAR), obs_date, usd, 0, 'USD', usd FROM synth_listings WHERE NOT sold
        """
    )
    con.execute("DROP TABLE synth_listings")
    con.execute("DROP TABLE synth_models")
    # A history written in bulk bypasses the load path, which keeps the observations current.
    rebuild_price_observations(con)


def build(path: Path, spec: SynthSpec) -> float:
    """Write a fresh synthetic warehouse at ``path``; returns the seconds it took."""
    for p in (path, Path(str(path) + ".wal")):
        p.unlink(missing_ok=True)
    t0 = time.perf_counter()
    con = open_database(path)
    try:
        generate(con, spec)
        con.execute("CHECKPOINT")
    finally:
        con.close()
    return time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--quick", action="store_true", help="a tenth of the listings")
    args = ap.parse_args(argv)
    spec = QUICK if args.quick else FULL
    seconds = build(args.out, spec)
    print(f"synthetic history: {spec.n_models} models, {spec.days} days, {spec.n_listings:,} listings "
          f"-> {args.out} in {seconds:.1f} s")


if __name__ == "__main__":
    main()
