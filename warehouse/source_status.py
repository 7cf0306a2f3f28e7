"""What each source last fetched and when, for `gpuvalue sources`: its newest run, its newest run that
stored something, and the date of the data it gave (``source_dates.sources_from_db``'s ``as_of``)."""

from __future__ import annotations

from typing import Any

import duckdb

from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.source_dates import sources_from_db


def source_fetches(con: duckdb.DuckDBPyConnection) -> dict[str, dict[str, Any]]:
    """Per stored source name: its newest run and newest storing run, with ``data_as_of``."""
    rows = {r["source"]: r for r in sql_files.dicts(con, "source_last_fetches")}
    for item in sources_from_db(con):
        if item["name"] in rows:
            rows[item["name"]]["data_as_of"] = item.get("as_of")
    for row in rows.values():
        row.setdefault("data_as_of", None)
    return rows
