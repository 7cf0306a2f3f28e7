"""Each daily run as a whole: 'running' while it works, 'ok' or 'failed' when it ends, 'interrupted'
when it never ended (killed, crashed). The sources' rows in ``runs`` say what each source did; only
this says whether the run got to its end."""

from __future__ import annotations

import os
from datetime import date, datetime, timezone

import duckdb

from gpuvalue.warehouse import sql_files


def _now() -> datetime:
    return datetime.now(timezone.utc).replace(tzinfo=None)


def begin(con: duckdb.DuckDBPyConnection, run_id: str, as_of: date, replay: bool) -> list[dict]:
    """Record the run as running; the runs found still 'running' (none can be alive while this one
    holds the run lock) are marked interrupted and returned: run_id, as_of, started_at."""
    found = sql_files.dicts(con, "run_attempts_interrupted", {"run_id": run_id, "now": _now()})
    sql_files.run(con, "run_attempt_start", {"run_id": run_id, "as_of": as_of, "replay": replay,
                                             "pid": os.getpid(), "started_at": _now()})
    return found


def begin_import(con: duckdb.DuckDBPyConnection, attempt_id: str, as_of: date, note: str) -> None:
    """Record an import as running, with what it will load: ``note`` as it goes (``import_note``)."""
    sql_files.run(con, "run_attempt_start", {"run_id": attempt_id, "as_of": as_of, "replay": False,
                                             "pid": os.getpid(), "started_at": _now()})
    import_note(con, attempt_id, note)


def import_note(con: duckdb.DuckDBPyConnection, attempt_id: str, note: str) -> None:
    """What a running import has loaded so far, in the transaction of the rows it counts."""
    sql_files.run(con, "run_attempt_note", {"run_id": attempt_id, "note": note})


def finish(con: duckdb.DuckDBPyConnection, run_id: str, status: str, note: str | None = None) -> None:
    sql_files.run(con, "run_attempt_finish", {"run_id": run_id, "status": status, "note": note,
                                              "finished_at": _now()})


def recent(con: duckdb.DuckDBPyConnection, limit: int, running_pid: int | None) -> list[dict]:
    """The newest runs; a 'running' one whose process is not the lock's live holder is shown as
    interrupted (``running_pid``: the pid the run lock names, when that process is alive)."""
    found = sql_files.dicts(con, "run_attempts_recent", {"limit": limit})
    for row in found:
        if row["status"] == "running" and row["pid"] != running_pid:
            row["status"] = "interrupted"
            row["note"] = row["note"] or "did not finish: its process is gone"
    return found


def interrupted_words(found: list[dict]) -> str:
    """What a run says of the runs it found interrupted."""
    named = ", ".join(f"{r['run_id']} ({r['as_of']}, started {r['started_at']:%Y-%m-%d %H:%M} UTC)" for r in found)
    return f"the previous run{'s' if len(found) > 1 else ''} {named} did not finish: recorded as interrupted"
