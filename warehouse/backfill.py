"""Materialize prices and rankings for a whole date range in one set-based pass.

Running the daily SQL once per day re-reads every observation for each day; over a year of
history that is hundreds of scans. The backfill reads the observations once, works out which
window each day's price comes from, and evaluates every needed window once, a month of windows
at a time so memory stays bounded. The result is the daily SQL's, row for row, so rebuilding
history after a matcher upgrade or a rule change gives exactly what the daily runs would have.
"""

from __future__ import annotations

from datetime import date

import duckdb

from gpuvalue.models.price_age import DEFAULT_COMPARABLE_DAYS
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.load import transaction


# Three months of windows per statement: about 1.3 GB at ten million listings, a third of the
# frames evaluated for context only (one month in two with single months).
MONTHS_PER_BATCH = 3


def _anchor_batches(con: duckdb.DuckDBPyConnection, months: int = MONTHS_PER_BATCH) -> list[tuple[date, date]]:
    """First and last needed window end of each run of `months` calendar months, oldest first."""
    return sql_files.rows(con, "backfill_anchor_batches", [months])


def _judge_needed_windows(con: duckdb.DuckDBPyConnection, params: dict) -> None:
    """Statistics of every window in backfill_needed, into backfill_stats, a batch of months at a time."""
    for a0, a1 in _anchor_batches(con):
        sql_files.run(con, "backfill_prices_windows", {**params, "a0": a0, "a1": a1})


def backfill_prices(con: duckdb.DuckDBPyConnection, start: date, end: date, window_days: int, min_count: int,
                    comparable_days: int = DEFAULT_COMPARABLE_DAYS) -> int:
    """Replace prices_daily for every day in [start, end]; returns the number of price rows written.

    The caller owns the transaction, so prices and rankings can be replaced together.
    """
    if end < start:
        raise ValueError(f"backfill range is empty: {start} > {end}")
    params = {"start": start, "end": end, "window_days": window_days, "min_count": min_count}
    sql_files.run(con, "backfill_prices", params)
    _judge_needed_windows(con, params)  # each day's trailing window
    sql_files.run(con, "backfill_prices_fallback", params)
    _judge_needed_windows(con, params)  # the earlier windows of days whose trailing one does not count
    sql_files.run(con, "backfill_prices_resolve", {**params, "comparable_days": comparable_days})
    return sql_files.scalar(con, "backfill_prices_written", [start, end])


def backfill_ranking(con: duckdb.DuckDBPyConnection, start: date, end: date, *, precision: str, reference: str,
                     window_days: int, comparable_days: int = DEFAULT_COMPARABLE_DAYS) -> int:
    """Replace ranking_daily for every day in [start, end] from prices_daily; returns rows written."""
    sql_files.build(con, "ranking_daily", {"start": start, "end": end, "precision": precision, "reference": reference,
                                   "window_days": window_days, "comparable_days": comparable_days})
    return sql_files.scalar(con, "backfill_ranking_written", [start, end])


def backfill(con: duckdb.DuckDBPyConnection, start: date, end: date, *, precision: str, reference: str,
             window_days: int, min_count: int, comparable_days: int = DEFAULT_COMPARABLE_DAYS) -> int:
    """Prices then rankings for every day in [start, end], in one transaction; returns ranking rows."""
    with transaction(con):
        backfill_prices(con, start, end, window_days, min_count, comparable_days)
        return backfill_ranking(con, start, end, precision=precision, reference=reference, window_days=window_days,
                                comparable_days=comparable_days)
