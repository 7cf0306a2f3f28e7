"""`gpuvalue sql`: ad-hoc SQL on a read-only, sandboxed connection, each statement bounded in time,
memory and disk (flows/sql_bounds.py)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, app, err, exc_line, fail, jsonable, out, print_table, reader_error, reader_settings


# A query may begin with a `-- comment` (the README's examples do): click would read that word as an
# option, so unknown options are passed through as the query and a mistyped flag is caught below.
@app.command(context_settings={"ignore_unknown_options": True})
def sql(
    query: Annotated[Optional[str], typer.Argument(help="The SQL (it may start with a -- comment); - or nothing reads it from stdin.")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read the SQL from this file.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table (one statement only).")] = False,
    db: DbOpt = None,
) -> None:
    """Run ad-hoc SQL on a read-only connection (no writes, no ATTACH, no file access).

    Several statements separated by ; run in order, and each result is shown under its own title (a table shows its first 1,000 rows; --json streams every row). Each statement stops at GPUVALUE_SQL_TIMEOUT_S (30 s); a query may use GPUVALUE_SQL_MEMORY_LIMIT of memory (1GB) and GPUVALUE_SQL_TEMP_LIMIT of disk (2GB); Ctrl-C stops the query.
    """
    try:
        _sql_command(query, file, as_json, db)
    except KeyboardInterrupt:  # Ctrl-C before or between statements: as during one, one line
        _interrupted("interrupted (Ctrl-C); nothing was changed")


def _sql_command(query: str | None, file: Path | None, as_json: bool, db: Path | None) -> None:
    import duckdb

    from gpuvalue.flows.sql_bounds import QueryStopped, stream_statement
    from gpuvalue.warehouse.db import WarehouseError, open_sandboxed_reader

    text = _sql_text(query, file)
    settings = reader_settings(db)
    for name, value in (("GPUVALUE_SQL_MEMORY_LIMIT", settings.sql_memory_limit),
                        ("GPUVALUE_SQL_TEMP_LIMIT", settings.sql_temp_limit)):
        if (problem := size_problem(value)) is not None:
            fail(f"invalid settings: {name}={value!r}: {problem}")
    try:
        con = open_sandboxed_reader(settings.db, wait_s=settings.read_wait_s,
                                    memory_limit=settings.sql_memory_limit, temp_limit=settings.sql_temp_limit)
    except WarehouseError as exc:
        fail(reader_error(exc, settings.read_wait_s))
    results: list[tuple[str, list[str] | None, list[tuple], bool]] = []

    def write_json(cols: list[str], rows: list[tuple]) -> None:
        out.file.write("".join(json.dumps({c: jsonable(v) for c, v in zip(cols, r)}, default=str, allow_nan=False)
                               + "\n" for r in rows))

    try:
        try:
            statements = con.extract_statements(text)
        except duckdb.Error as exc:
            fail(exc_line(exc))
        if not statements:
            fail("the query has no SQL statement (empty, or only comments)")
        if as_json and len(statements) > 1:
            fail(f"--json takes one statement, this query has {len(statements)}: run them one at a time")
        for number, statement in enumerate(statements, start=1):
            where = f"statement {number} of {len(statements)}: " if len(statements) > 1 else ""
            try:
                # --json streams every row as it is fetched; a table shows the first TABLE_ROWS.
                cols, rows, more = stream_statement(con, statement, settings.sql_timeout_s,
                                                    on_rows=write_json if as_json else None,
                                                    keep_rows=None if as_json else TABLE_ROWS)
            except QueryStopped as stopped:
                if stopped.why == "time limit":
                    fail(f"{where}stopped at the time limit of {settings.sql_timeout_s:g} s a query may run "
                          "(GPUVALUE_SQL_TIMEOUT_S)", code=1)
                _interrupted(f"{where}interrupted (Ctrl-C) after {stopped.seconds:.1f} s; nothing was changed")
            except duckdb.OutOfMemoryException as exc:
                fail(f"{where}the query needs more memory than the {settings.sql_memory_limit} it may use "
                      f"(GPUVALUE_SQL_MEMORY_LIMIT; GPUVALUE_SQL_TEMP_LIMIT {settings.sql_temp_limit} of disk "
                      f"to spill to): {exc_line(exc)}", code=1)
            except duckdb.Error as exc:
                fail(where + _sql_error(exc))
            results.append((statement.query, cols, rows, more))
    finally:
        with contextlib.suppress(duckdb.Error):  # a statement that ignored its interrupt: the exit ends it
            con.close()
    if as_json:
        return
    for number, (statement_text, cols, rows, more) in enumerate(results, start=1):
        title = None
        if len(results) > 1:
            first = next((line.strip() for line in statement_text.splitlines() if line.strip()), "")
            title = f"{number}/{len(results)}: {first[:100]}"
        if title:
            # Above the table rather than as its title, which would wrap to the table's width.
            out.print(title + ("" if cols is not None else " (no result)"), style="bold", markup=False,
                      highlight=False, soft_wrap=True)
        if cols is not None:
            print_table(cols, [tuple(_shown(v) for v in r) for r in rows])
            if more:
                err.print(f"[yellow]note:[/yellow] the first {TABLE_ROWS:,} rows are shown, and more follow: "
                          "add a LIMIT, or --json for every row", highlight=False, soft_wrap=True)


# A table is read by a person: its rows and each cell's text are capped, so that an answer of
# millions of rows or megabyte values renders in moments and bounded memory; --json streams them whole.
TABLE_ROWS = 1000
CELL_CHARS = 1000


def _shown(value):
    """A cell as the table shows it: text beyond CELL_CHARS cut, saying how much."""
    if isinstance(value, (str, bytes)) and len(value) > CELL_CHARS:
        return f"{value[:CELL_CHARS]!s}... ({len(value):,} {'characters' if isinstance(value, str) else 'bytes'})"
    return value


_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([KMGT])(i?)B\s*", re.IGNORECASE)
MIN_SIZE_BYTES = 16 * 2**20  # below this DuckDB cannot run the simplest query
MAX_SIZE_BYTES = 2**50  # a pebibyte: more than any machine holds, and within DuckDB's range


def size_problem(text: str) -> str | None:
    """Why a memory or disk size setting ("1GB", "512MiB") cannot be a query's bound, or None."""
    found = _SIZE.fullmatch(text)
    if found is None:
        return "not a size such as 1GB or 512MB"
    power = "KMGT".index(found.group(2).upper()) + 1
    size = float(found.group(1)) * (1024 if found.group(3) else 1000) ** power
    if size < MIN_SIZE_BYTES:
        return "below 16MB, too little for any query"
    if size > MAX_SIZE_BYTES:
        return "above 1PiB, more than any machine has: no bound at all"
    return None


def _interrupted(message: str) -> None:
    """Ctrl-C during a query: its one line, then the exit at once. Closing the database and the
    interpreter's teardown took over a second on a busy machine, with nothing left to save (the
    connection only read)."""
    from rich.markup import escape

    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _sql_error(exc: Exception) -> str:
    """DuckDB's first line, with its hint where it gives one ('Did you mean "ranking_daily"?'):
    a user guessing a table's or column's name learns the right one in the same line."""
    msg = exc_line(exc)
    low = str(exc).lower()
    if "read-only" in low or "read only" in low or "external access" in low or "lock_configuration" in low:
        return f"gpuvalue sql is read-only: {msg}"
    hint = next((line.strip() for line in str(exc).splitlines()[1:]
                 if line.strip().startswith(("Did you mean", "Candidate bindings"))), None)
    if hint:
        msg = f"{msg} {hint}"
    if msg.startswith("Catalog Error: Table with name"):  # DuckDB suggests a name however far it is
        msg += ' (gpuvalue sql "SHOW TABLES" lists the tables)'
    return msg


def _sql_text(query: str | None, file: Path | None) -> str:
    """The SQL from the argument, -f FILE or stdin; a mistyped option is not taken for SQL."""
    if query is not None and file is not None:
        fail("give the SQL as an argument or with -f FILE, not both")
    if file is not None:
        if not file.is_file():
            fail(f"no such file: {file}")
        try:
            return file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            fail(f"cannot read {file}: {exc}")
    if query is not None and query != "-":
        if re.fullmatch(r"--?[A-Za-z][\w-]*(=\S*)?", query):
            fail(f"no such option: {query.split('=', 1)[0]}")
        return query
    if sys.stdin is None or sys.stdin.isatty():
        fail('give the SQL as an argument (gpuvalue sql "SELECT ..."), with -f FILE, or on stdin')
    return sys.stdin.read()
