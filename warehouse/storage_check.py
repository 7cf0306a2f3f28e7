"""Whether every stored byte of the warehouse reads back: DuckDB checks a block's checksum only when
the block is read, so a damaged file opens, counts its rows and passes the SQL checks until a query
touches the damaged part. `gpuvalue check` reads every column of every table once."""

from __future__ import annotations

import duckdb

from gpuvalue.warehouse.sql_files import rows


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def unreadable_tables(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """(table, DuckDB's first line) for each table whose data cannot be read back."""
    problems = []
    for schema, table in rows(con, "storage_tables"):
        qualified = f"{_ident(schema)}.{_ident(table)}"
        read_all = f"SELECT count(*), max(hash(COLUMNS(*))) FROM {qualified}"  # SQL built from identifiers: every table
        try:
            con.execute(read_all).fetchall()
        except duckdb.Error as exc:
            problems.append((f"{schema}.{table}" if schema != "main" else table, str(exc).splitlines()[0]))
    return problems
