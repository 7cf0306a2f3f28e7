"""SQL lives in warehouse/sql/*.sql; this reads it by name and runs it.

Every statement that reads or writes a warehouse table is a file here, run through the functions
below, so that a query can be read, diffed and tested as SQL. What stays in Python is plumbing
that names no table's contents: transaction control, registering and dropping an Arrow batch or a
temp view over it, session settings, and statements built from identifiers (ATTACH, COPY FROM
DATABASE, EXPORT/IMPORT DATABASE; a query over a table named at run time carries the marker
``# SQL built from identifiers:`` and its reason). tests/test_sql_location.py fails on any other
query in a string; tests/warehouse/test_sql_files.py runs every file.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from importlib import resources
from typing import Any

import duckdb

Params = dict[str, Any] | list[Any] | None


@cache
def sql(name: str) -> str:
    return resources.files("gpuvalue.warehouse").joinpath("sql", f"{name}.sql").read_text(encoding="utf-8")


def statements(name: str) -> tuple[str, ...]:
    """The statements of a file, for DuckDB calls that take one at a time."""
    return _split_once(sql(name))


@cache
def _split_once(text: str) -> tuple[str, ...]:
    """Each file's text is split once a process: every run of the file asks for its statements."""
    return tuple(split_statements(text))


def split_statements(text: str) -> list[str]:
    out, buf = [], []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("--"):
            continue
        buf.append(line)
        if stripped.endswith(";"):
            out.append("\n".join(buf).strip())
            buf = []
    tail = "\n".join(buf).strip()
    if tail:
        out.append(tail)
    return out


def run(con: duckdb.DuckDBPyConnection, name: str, params: Params = None) -> None:
    """Every statement of a file in order; named parameters go to the statements that use them."""
    execute(con, statements(name), params)


@cache
def mart_build(name: str) -> tuple[str, ...]:
    """How the stored mart ``name`` is built. A mart has one home, warehouse/models/marts/<name>.sql:
    its first statement declares the table (warehouse/layers.py creates it from there) and the rest
    refill it (delete the days they rebuild, insert them)."""
    text = resources.files("gpuvalue.warehouse").joinpath("models", "marts", f"{name}.sql").read_text(encoding="utf-8")
    return tuple(split_statements(text)[1:])


def build(con: duckdb.DuckDBPyConnection, name: str, params: Params = None) -> None:
    """Refill the stored mart ``name`` by its file's build statements (``mart_build``)."""
    execute(con, mart_build(name), params)


def run_on_batch(con: duckdb.DuckDBPyConnection, batch_name: str, batch: Any, name: str, params: Params = None) -> None:
    """Run the file ``name`` over an Arrow ``batch`` readable as the table ``batch_name``: how every
    bulk load writes (the batch is read in place, without a copy, and dropped whatever happens)."""
    with registered(con, batch_name, batch):
        run(con, name, params)


@contextmanager
def registered(con: duckdb.DuckDBPyConnection, batch_name: str, batch: Any) -> Iterator[None]:
    """An Arrow ``batch`` readable as the table ``batch_name`` inside the block, and only there."""
    con.register(batch_name, batch)
    try:
        yield
    finally:
        con.unregister(batch_name)


def execute(con: duckdb.DuckDBPyConnection, stmts: tuple[str, ...], params: Params = None) -> None:
    """Statements in order; named parameters go to the statements that use them."""
    for stmt in stmts:
        if isinstance(params, dict):
            con.execute(stmt, {k: v for k, v in params.items() if f"${k}" in stmt})
        elif params:
            con.execute(stmt, params)
        else:
            con.execute(stmt)


def cursor(con: duckdb.DuckDBPyConnection, name: str, params: Params = None) -> duckdb.DuckDBPyConnection:
    """A one-statement file, executed: its rows are still to be fetched."""
    (stmt,) = statements(name)
    return con.execute(stmt, params) if params else con.execute(stmt)


def rows(con: duckdb.DuckDBPyConnection, name: str, params: Params = None) -> list[tuple]:
    return cursor(con, name, params).fetchall()


def dicts(con: duckdb.DuckDBPyConnection, name: str, params: Params = None) -> list[dict[str, Any]]:
    """A one-statement file's rows as dicts, by column name."""
    return as_dicts(cursor(con, name, params))


def scalar(con: duckdb.DuckDBPyConnection, name: str, params: Params = None) -> Any:
    """The first column of a one-statement file's first row (None where it returned no row)."""
    found = cursor(con, name, params).fetchall()  # fetched to the end: DuckDB holds the connection till then
    return found[0][0] if found else None


def arrow_table(con: duckdb.DuckDBPyConnection, name: str, params: list[Any] | None = None) -> Any:
    """A one-statement file's result as an Arrow table (for the Parquet exports)."""
    (stmt,) = statements(name)
    relation = con.sql(stmt, params=params) if params else con.sql(stmt)
    # DuckDB 2 names it to_arrow_table; older releases only have fetch_arrow_table.
    return (getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table)()


def as_dicts(cur: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]
