"""Read-side queries the CLI and exports share."""

from __future__ import annotations

from datetime import date

import duckdb

from gpuvalue.warehouse.sql_files import statements


def ranking_rows(
    con: duckdb.DuckDBPyConnection,
    *,
    as_of: date | None = None,
    top: int = 20,
    min_memory: float | None = None,
    max_price: float | None = None,
    vendor: str | None = None,
    segment: str | None = None,
    supported_only: bool = False,
    desktop_only: bool = True,
) -> list[dict]:
    cur = con.execute(
        statements("ranking_filtered")[0],
        {
            "as_of": as_of,
            "min_memory": min_memory,
            "max_price": max_price,
            "vendor": vendor,
            "segment": segment,
            "supported_only": supported_only,
            "desktop_only": desktop_only,
            "top": top,
        },
    )
    cols = [d[0] for d in cur.description]
    return [dict(zip(cols, r)) for r in cur.fetchall()]
