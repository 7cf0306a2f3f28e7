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
from dataclasses import dataclass, field

import duckdb

POLL_S = 0.05


class QueryStopped(Exception):
    """The statement was interrupted: ``why`` is "time limit" or "interrupted"."""

    def __init__(self, why: str, seconds: float) -> None:
        super().__init__(why)
        self.why = why
        self.seconds = seconds


@dataclass
class _Outcome:
    cols: list[str] | None = None
    rows: list[tuple] = field(default_factory=list)
    error: BaseException | None = None


def run_statement(con: duckdb.DuckDBPyConnection, statement, limit_s: float,
                  clock=time.monotonic) -> tuple[list[str] | None, list[tuple]]:
    """(columns, rows) of one statement; QueryStopped past ``limit_s`` or on Ctrl-C; DuckDB's own
    errors as raised."""
    outcome = _Outcome()

    def work() -> None:
        try:
            cur = con.execute(statement)
            outcome.cols = [d[0] for d in cur.description] if cur.description is not None else None
            outcome.rows = cur.fetchall() if outcome.cols is not None else []
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
        deadline = clock() + 5
        while worker.is_alive() and clock() < deadline:
            con.interrupt()
            worker.join(POLL_S)
    if why == "interrupted" or isinstance(outcome.error, duckdb.InterruptException):
        raise QueryStopped(why or "interrupted", clock() - started)
    if outcome.error is not None:
        raise outcome.error
    return outcome.cols, outcome.rows
