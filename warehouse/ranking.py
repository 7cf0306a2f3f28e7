"""A day's prices and ranking, materialized from the staging layer (``warehouse/models/``).

``prices_daily`` and ``ranking_daily`` are marts, each declared and built by its one file
(``warehouse/models/marts/``) from the price observations and the best performance figures, one
day at a time.
"""

from __future__ import annotations

from datetime import date

import duckdb

from gpuvalue.models.price_age import DEFAULT_COMPARABLE_DAYS
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.transactions import transaction


def materialize_day(
    con: duckdb.DuckDBPyConnection,
    as_of: date,
    *,
    precision: str,
    reference: str,
    window_days: int,
    min_count: int,
    comparable_days: int = DEFAULT_COMPARABLE_DAYS,
) -> int:
    """Prices then ranking for one date, in one transaction: readers see the old day or the new one.

    ``comparable_days``: prices within this many days of the day's newest price rank first ('recent');
    of a card's two stale prices, sold and asking, the newer is its price unless they are this close."""
    has_reference, has_any = sql_files.rows(con, "materialize_day_reference",
                                            {"reference": reference, "precision": precision})[0]
    if has_any and not has_reference:
        from gpuvalue.warehouse.db import WarehouseError

        raise WarehouseError(
            f"the reference GPU {reference!r} has no {precision} performance figure, so nothing can be "
            "expressed relative to it: set GPUVALUE_REFERENCE_GPU to a catalog model name that was "
            "measured or estimated (default 'GeForce RTX 3090')")
    params = {
        "as_of": as_of,
        "window_days": window_days,
        "min_count": min_count,
        "precision": precision,
        "reference": reference,
    }
    with transaction(con):
        sql_files.build(con, "prices_daily", {**params, "comparable_days": comparable_days})
        sql_files.build(con, "ranking_daily", {**params, "start": as_of, "end": as_of, "comparable_days": comparable_days})
    return sql_files.scalar(con, "ranking_day_count", [as_of])
