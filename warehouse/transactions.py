"""One transaction around a block: committed when it ends, rolled back when it raises.

Every load and the ranking write through it, so a failing source or day leaves the warehouse as it
was before the block, and readers see the old state or the new one.
"""

from __future__ import annotations

import duckdb


class _Transaction:
    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def __enter__(self) -> duckdb.DuckDBPyConnection:
        self.con.execute("BEGIN TRANSACTION")
        return self.con

    def __exit__(self, exc_type, exc, tb) -> None:
        self.con.execute("ROLLBACK" if exc_type else "COMMIT")


def transaction(con: duckdb.DuckDBPyConnection) -> _Transaction:
    return _Transaction(con)
