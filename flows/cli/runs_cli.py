"""`gpuvalue runs`: the daily runs as wholes, so that a run that never finished is not read as a good one."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, fail, print_table, open_reader, write_json_lines, app, reader_settings


@app.command()
def runs(
    last: Annotated[int, typer.Option("--last", help="How many of the newest runs.")] = 10,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines, one object per run.")] = False,
    db: DbOpt = None,
) -> None:
    """The newest daily runs: started, finished and how (ok, failed, interrupted, running now, or cancelled: an import stopped by Ctrl-C that kept nothing), with how many of their sources loaded.

    A run killed or crashed before its end shows as interrupted, whatever its sources' rows in table runs say.
    """
    from gpuvalue.warehouse import run_attempts
    from gpuvalue.warehouse.db import RunLock, lock_record_pid

    if last < 1:
        fail("--last must be at least 1")
    settings = reader_settings(db)
    holder = RunLock(settings.db).holder()  # None unless a process holds the lock now
    pid = lock_record_pid(holder)
    con = open_reader(settings)
    try:
        rows = run_attempts.recent(con, last, pid)
    finally:
        con.close()
    if as_json:
        write_json_lines(rows)
        return
    if not rows:
        fail("no daily run recorded yet: `gpuvalue run` (or `gpuvalue run --replay`) makes one", code=1)
    print_table(["run", "as of", "replay", "started (UTC)", "finished (UTC)", "status", "sources ok", "failed", "note"],
                 [(r["run_id"], r["as_of"], r["replay"], f"{r['started_at']:%Y-%m-%d %H:%M:%S}",
                   f"{r['finished_at']:%Y-%m-%d %H:%M:%S}" if r["finished_at"] else None, r["status"],
                   r["sources_ok"], r["sources_failed"], r["note"]) for r in rows])
