"""Keeping the warehouse: `gpuvalue check` (its integrity checks), `gpuvalue backup` and `restore`
(across DuckDB versions), and `gpuvalue measure` (the local GPU's figures into it)."""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Optional

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, app, err, fail, full_settings, open_reader, out, reader_settings


@app.command()
def check(db: DbOpt = None) -> None:
    """Run the warehouse's integrity checks (they also run after every load); exit 1 when one fails."""
    from gpuvalue.warehouse.checks import run_checks
    from gpuvalue.warehouse.environment import corruption_problem
    from gpuvalue.warehouse.storage_check import unreadable_tables

    settings = reader_settings(db)
    con = open_reader(settings)  # a file too damaged to open is refused here, saying how to restore it
    try:
        damaged = unreadable_tables(con)  # every stored block read back once: damage shows only when read
        results = [] if damaged else run_checks(con)
    finally:
        con.close()
    if damaged:
        for table, why in damaged:
            out.print(f"FAILED storage: table {table} cannot be read back: {why}", highlight=False)
        tables = ", ".join(table for table, _ in damaged)
        fail(f"{corruption_problem(settings.db)} (damaged: {tables})", code=1)
    out.print("ok     storage: every table reads back", highlight=False)
    for r in results:
        out.print(f"{'ok    ' if r.ok else 'FAILED'} {r.name.replace('_', ' ')}" + ("" if r.ok else f": {r.summary}"),
                  highlight=False)
    failed = [r for r in results if not r.ok]
    if failed:
        err.print(f"[red]{len(failed)} of {len(results)} integrity checks failed[/red]")
        raise typer.Exit(1)
    out.print(f"all {len(results)} integrity checks passed")


@app.command()
def backup(
    out_dir: Annotated[Path, typer.Option("--out", help="An empty or new folder for the export.")],
    db: DbOpt = None,
) -> None:
    """Export the whole database (DuckDB EXPORT DATABASE, Parquet) to move it across DuckDB versions."""
    from gpuvalue.warehouse.maintenance import backup_database

    settings = full_settings(db)
    from gpuvalue.warehouse.db import WarehouseError

    from gpuvalue.warehouse.paths import folder_problem

    if out_dir.exists() and out_dir.is_file():
        fail(f"{out_dir} is a file: --out names a folder, empty or new, for the backup's files")
    if problem := folder_problem(out_dir):
        fail(f"--out {str(out_dir)[:80]!r} {problem}: it names a folder, empty or new, for the backup's files")
    try:
        backup_database(settings.db, out_dir)
    except (OSError, ValueError, WarehouseError) as exc:
        fail(str(exc))
    out.print(f"backed up {settings.db} to {out_dir}")


@app.command()
def restore(
    from_dir: Annotated[Path, typer.Option("--from", help="A folder written by gpuvalue backup.")],
    db: DbOpt = None,
) -> None:
    """Restore a backup into a new database file (refuses to overwrite an existing one)."""
    from gpuvalue.warehouse.maintenance import restore_database

    settings = full_settings(db)
    from gpuvalue.warehouse.db import WarehouseError

    from gpuvalue.warehouse.paths import folder_problem

    if problem := folder_problem(from_dir):
        fail(f"--from {str(from_dir)[:80]!r} {problem}: it names a folder gpuvalue backup wrote")
    try:
        restore_database(from_dir, settings.db)
    except (OSError, ValueError, WarehouseError) as exc:
        fail(str(exc))
    out.print(f"restored {from_dir} into {settings.db}")


@app.command()
def measure(
    suite: Annotated[str, typer.Option("--suite", help="default (about a minute) or tiny.")] = "default",
    device: Annotated[str, typer.Option("--device", help="cuda, or cpu with --allow-cpu (testing only).")] = "cuda",
    allow_cpu: Annotated[bool, typer.Option("--allow-cpu", help="Permit the CPU backend (for testing the suite).")] = False,
    results: Annotated[Optional[Path], typer.Option("--results", help="Also write the JSON results here.")] = None,
    save: Annotated[bool, typer.Option("--save/--no-save", help="Store the figures in the database as source 'local'.")] = True,
    db: DbOpt = None,
) -> None:
    """Benchmark the local GPU (needs the 'measure' extra, PyTorch) and feed it into the ranking as 'local'."""
    import io

    from gpuvalue.flows import stages
    from gpuvalue.flows.measure import SUITES, measure_command
    from gpuvalue.models.records import PerfFigure
    from gpuvalue.warehouse import load
    from gpuvalue.warehouse.db import RunLock, open_database

    if suite not in SUITES:  # a bad value, before the estimators are fitted for nothing
        fail(f"--suite must be {' or '.join(SUITES)}")
    settings = full_settings(db)
    estimators, features = None, None
    if settings.db.exists():
        con = open_reader(settings)
        try:
            estimators, features = stages.fitted_estimators(con, note=lambda message: err.print(message, highlight=False))
        finally:
            con.close()
    buf = io.StringIO()
    code = measure_command(results_path=results, suite=suite, device=device, allow_cpu=allow_cpu,
                           estimators=estimators or None, features=features, out=buf)
    sys.stdout.write(buf.getvalue())
    if code != 0:
        raise typer.Exit(code)
    payload = json.loads(buf.getvalue())
    figures = [PerfFigure.model_validate(f) for f in payload.get("figures", [])]
    if save and figures:
        from gpuvalue.warehouse.db import WarehouseError

        try:
            with RunLock(settings.db, "measure"):
                con = open_database(settings.db)
                try:
                    with load.transaction(con):
                        load.replace_perf(con, "local", figures, datetime.now(timezone.utc))
                finally:
                    con.close()
        except WarehouseError as exc:
            fail(f"measured, but could not store the figures: {exc} (rerun with --results FILE to keep them)")
        err.print(f"stored {len(figures)} local figures for {payload.get('model')}; the next ranking uses them")
