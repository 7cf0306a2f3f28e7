"""Backup and restore through DuckDB's EXPORT/IMPORT DATABASE, the portable way across DuckDB versions."""

from __future__ import annotations

import glob
import os
import re
import shutil
from pathlib import Path

import duckdb

from gpuvalue.warehouse.db import DatabaseCorruptError, WarehouseError, open_database, pid_alive, storage_config
from gpuvalue.warehouse.environment import corruption_problem, environment_problem, looks_corrupted
from gpuvalue.warehouse.layers import build_order


def _quoted_path(path: Path) -> str:
    # EXPORT/IMPORT DATABASE take a literal, not a bound parameter: quote it as a SQL string literal.
    return "'" + str(path).replace("'", "''") + "'"


def backup_database(db_path: Path, out_dir: Path) -> None:
    """Written into a hidden folder beside ``out_dir`` and renamed into place once complete: a backup
    killed halfway leaves nothing at ``out_dir`` that `restore` or the next `backup` could take for one."""
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ValueError(f"{out_dir} is not empty; choose a new folder")
    con = open_database(db_path, read_only=True)  # a missing database is refused before a folder is made
    partial = out_dir.with_name(f".{out_dir.name}.partial-{os.getpid()}")
    try:
        try:
            out_dir.parent.mkdir(parents=True, exist_ok=True)
            _remove_dead_partials(out_dir)
            partial.mkdir()
            con.execute(f"EXPORT DATABASE {_quoted_path(partial)} (FORMAT parquet)")
        finally:
            con.close()
        schema = partial / "schema.sql"
        schema.write_text(views_and_macros_in_build_order(schema.read_text(encoding="utf-8")), encoding="utf-8")
        if out_dir.exists():
            out_dir.rmdir()  # empty, as checked above: the rename needs the name free
        os.rename(partial, out_dir)
    except BaseException as exc:
        shutil.rmtree(partial, ignore_errors=True)
        if isinstance(exc, duckdb.Error):
            if looks_corrupted(exc):
                raise DatabaseCorruptError(corruption_problem(db_path, exc)) from None
            raise WarehouseError(environment_problem(exc, out_dir)) from None
        if isinstance(exc, OSError):
            raise WarehouseError(environment_problem(exc, out_dir)) from None
        raise


_STATEMENT = re.compile(r"^CREATE\s+(?:OR\s+REPLACE\s+)?(?P<kind>VIEW|MACRO)\s+(?P<name>\w+)", re.IGNORECASE)


def views_and_macros_in_build_order(schema: str) -> str:
    """EXPORT DATABASE's schema.sql with its views and macros in the order the model files build
    them, after everything else. DuckDB writes the macros in catalog order, then the views, and
    IMPORT DATABASE binds each as it creates it: a table macro that reads another macro or a view
    (the rental price rule) must come after it."""
    statements = [part for part in re.split(r"(?m)^(?=CREATE\s)", schema) if part.strip()]
    position = {model.name: i for i, model in enumerate(build_order(("macro", "view")))}
    derived = [s for s in statements if _STATEMENT.match(s)]
    others = [s for s in statements if not _STATEMENT.match(s)]
    ordered = sorted(derived, key=lambda s: position.get(_STATEMENT.match(s)["name"].lower(), len(position)))  # type: ignore[index]
    return "".join(part if part.endswith("\n") else part + "\n" for part in (*others, *ordered))


def _remove_dead_partials(out_dir: Path) -> None:
    """Half-written backups of killed processes (their pid is gone) beside ``out_dir``."""
    for leftover in out_dir.parent.glob(f".{glob.escape(out_dir.name)}.partial-*"):
        pid = leftover.name.rsplit("-", 1)[1]
        if pid.isdigit() and not pid_alive(int(pid)):
            shutil.rmtree(leftover, ignore_errors=True)


def restore_database(from_dir: Path, db_path: Path) -> None:
    if not (from_dir / "schema.sql").exists():
        raise ValueError(f"{from_dir} is not a gpuvalue backup (no schema.sql)")
    if db_path.exists():
        raise ValueError(f"{db_path} exists; restore into a new database file")
    db_path.parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(str(db_path), config=storage_config())  # in the format every DuckDB client reads
    try:
        con.execute(f"IMPORT DATABASE {_quoted_path(from_dir)}")
        con.close()
        open_database(db_path).close()  # refuses a backup from a newer schema, upgrades an older one
    except Exception as exc:
        con.close()
        for leftover in (db_path, Path(str(db_path) + ".wal")):  # never leave a half-restored file behind
            leftover.unlink(missing_ok=True)
        if isinstance(exc, duckdb.Error):
            raise ValueError(f"{from_dir} could not be restored: {str(exc).splitlines()[0]}") from None
        raise
