"""`gpuvalue sql` within bounds: a time limit per statement, and Ctrl-C that stops the query.

A user's query holds the warehouse for as long as it runs, and the daily run's load waits for it
(``GPUVALUE_WRITE_WAIT_S``). So every statement is stopped at ``GPUVALUE_SQL_TIMEOUT_S``, below
that patience, and a runaway (a recursive CTE without end, a cross join of millions) ends in one
line instead of being killed by hand. DuckDB runs the statement in C without returning to Python,
where a SIGINT would be seen only after it finished: the statement runs on a worker thread while
this one waits, and either limit reaches it through ``interrupt()``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import duckdb

POLL_S = 0.05


class QueryStopped(Exception):
    """The statement was interrupted: ``why`` is "time limit" or "interrupted"."""

    def __init__(self, why: str, seconds: float) -> None:
        super().__init__(why)
        self.why = why
        self.seconds = seconds


FETCH_ROWS = 256  # rows fetched at a time: what Python holds of a streamed answer besides DuckDB's own chunk


@dataclass
class _Outcome:
    cols: list[str] | None = None
    rows: list[tuple] = field(default_factory=list)
    more: bool = False  # rows beyond ``keep_rows`` were left unread
    error: BaseException | None = None


def run_statement(con: duckdb.DuckDBPyConnection, statement, limit_s: float,
                  clock=time.monotonic) -> tuple[list[str] | None, list[tuple]]:
    """(columns, rows) of one statement, every row kept; see ``stream_statement``."""
    cols, rows, _ = stream_statement(con, statement, limit_s, clock=clock)
    return cols, rows


def stream_statement(con: duckdb.DuckDBPyConnection, statement, limit_s: float, *, clock=time.monotonic,
                     on_rows: Callable[[list[str], list[tuple]], None] | None = None,
                     keep_rows: int | None = None) -> tuple[list[str] | None, list[tuple], bool]:
    """(columns, rows kept, whether more rows were left unread) of one statement; QueryStopped past
    ``limit_s`` or on Ctrl-C; DuckDB's own errors as raised.

    The answer is fetched a few hundred rows at a time within the same bounds as the query: DuckDB
    computes a result as it is fetched, so the time limit, Ctrl-C and the memory limit hold until its
    last row. ``on_rows(columns, rows)`` takes each batch as it comes (nothing kept: how ``--json``
    writes ten gigabytes in the memory of one batch); ``keep_rows`` stops reading past that many."""
    outcome = _Outcome()
    stop = threading.Event()

    def work() -> None:
        try:
            cur = con.execute(statement)
            outcome.cols = [d[0] for d in cur.description] if cur.description is not None else None
            if outcome.cols is None:
                return
            while not stop.is_set():
                want = FETCH_ROWS if keep_rows is None else min(FETCH_ROWS, keep_rows + 1 - len(outcome.rows))
                batch = cur.fetchmany(max(want, 1))
                if not batch:
                    return
                if on_rows is not None:
                    on_rows(outcome.cols, batch)
                    continue
                outcome.rows.extend(batch)
                if keep_rows is not None and len(outcome.rows) > keep_rows:
                    del outcome.rows[keep_rows:]
                    outcome.more = True
                    return
        except BaseException as exc:  # noqa: BLE001 - handed to the waiting thread
            outcome.error = exc

    worker = threading.Thread(target=work, name="gpuvalue-sql", daemon=True)
    started = clock()
    worker.start()
    why = None
    try:
        while worker.is_alive():
            worker.join(POLL_S)
            if why is None and worker.is_alive() and clock() - started >= limit_s:
                why = "time limit"
                break
    except KeyboardInterrupt:
        why = "interrupted"
    if why is not None:  # an interrupt sent before the statement began is lost: sent until it ends
        stop.set()
        deadline = clock() + 5
        while worker.is_alive() and clock() < deadline:
            con.interrupt()
            worker.join(POLL_S)
    if why is not None or isinstance(outcome.error, duckdb.InterruptException):
        raise QueryStopped(why or "interrupted", clock() - started)
    if outcome.error is not None:
        raise outcome.error
    return outcome.cols, outcome.rows, outcome.more
