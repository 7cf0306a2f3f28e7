"""Backup and restore through DuckDB's EXPORT/IMPORT DATABASE, the portable way across DuckDB versions."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb

from gpuvalue.warehouse.db import open_database, storage_config


def _quoted_path(path: Path) -> str:
    # EXPORT/IMPORT DATABASE take a literal, not a bound parameter: quote it as a SQL string literal.
    return "'" + str(path).replace("'", "''") + "'"


def backup_database(db_path: Path, out_dir: Path) -> None:
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ValueError(f"{out_dir} is not empty; choose a new folder")
    con = open_database(db_path, read_only=True)  # a missing database is refused before a folder is made
    created = not out_dir.exists()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        con.execute(f"EXPORT DATABASE {_quoted_path(out_dir)} (FORMAT parquet)")
    except BaseException:
        if created:  # no half-written backup left to be mistaken for one
            shutil.rmtree(out_dir, ignore_errors=True)
        raise
    finally:
        con.close()


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
