"""Materialize prices and rankings for a whole date range in one set-based pass.

Running the daily SQL once per day re-reads every observation for each day; over a year of
history that is hundreds of scans. The backfill reads the observations once and slides a
window over them, so rebuilding history after a matcher upgrade or a rule change is cheap.
"""

from __future__ import annotations

from datetime import date

import duckdb

from gpuvalue.warehouse.load import _run_file, transaction


def backfill_prices(con: duckdb.DuckDBPyConnection, start: date, end: date, window_days: int, min_count: int) -> int:
    """Replace prices_daily for every day in [start, end]; returns the number of price rows written.

    The caller owns the transaction, so prices and rankings can be replaced together.
    """
    if end < start:
        raise ValueError(f"backfill range is empty: {start} > {end}")
    _run_file(con, "backfill_prices", {"start": start, "end": end, "window_days": window_days, "min_count": min_count})
    return con.execute("SELECT count(*) FROM prices_daily WHERE as_of BETWEEN ? AND ?", [start, end]).fetchone()[0]


def backfill_ranking(con: duckdb.DuckDBPyConnection, start: date, end: date, *, precision: str, reference: str,
                     window_days: int) -> int:
    """Replace ranking_daily for every day in [start, end] from prices_daily; returns rows written."""
    _run_file(con, "backfill_ranking", {"start": start, "end": end, "precision": precision, "reference": reference,
                                        "window_days": window_days})
    return con.execute("SELECT count(*) FROM ranking_daily WHERE as_of BETWEEN ? AND ?", [start, end]).fetchone()[0]


def backfill(con: duckdb.DuckDBPyConnection, start: date, end: date, *, precision: str, reference: str,
             window_days: int, min_count: int) -> int:
    """Prices then rankings for every day in [start, end], in one transaction; returns ranking rows."""
    with transaction(con):
        backfill_prices(con, start, end, window_days, min_count)
        return backfill_ranking(con, start, end, precision=precision, reference=reference, window_days=window_days)
