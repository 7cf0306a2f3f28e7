"""Backup and restore through DuckDB's EXPORT/IMPORT DATABASE, the portable way across DuckDB versions.

A backup folder is SQL that restore executes (``schema.sql``, ``load.sql``) and Parquet files it
reads, so a folder someone else wrote could read any file into the new database, write files or
attach others. Restore therefore takes only what backup wrote: ``backup`` records each file's SHA-256
in ``manifest.json``, ``restore`` refuses a folder whose files differ from it (a file changed, added,
missing, or not a plain file), accepts only the statements an export writes (CREATE in schema.sql,
COPY ... FROM one of its own files in load.sql), and runs the import on a connection whose file
access is limited to that folder and locked (no reads elsewhere, no ATTACH, no extension loads).
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import stat
from pathlib import Path

import duckdb

from gpuvalue.warehouse.db import (
    NO_EXTENSION_DOWNLOADS, DatabaseCorruptError, WarehouseError, open_database, pid_alive, storage_config,
)
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
        write_manifest(partial)
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


MANIFEST = "manifest.json"
MANIFEST_FORMAT = "gpuvalue-backup-manifest/1"
_CHUNK = 1 << 20
# The one statement load.sql holds per table: COPY <table> FROM '<folder>/<file>' (FORMAT 'parquet').
_LOAD_STATEMENT = re.compile(r"\s*COPY\s+(?:\"[^\"]+\"|[A-Za-z_][\w$]*)(?:\.(?:\"[^\"]+\"|[A-Za-z_][\w$]*))*\s+"
                             r"FROM\s+'((?:[^']|'')*)'\s*\(\s*FORMAT\s+'?parquet'?\s*\)\s*;?\s*", re.IGNORECASE)


def _digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(_CHUNK):
            sha.update(chunk)
    return sha.hexdigest()


def write_manifest(folder: Path) -> None:
    """Record every file of a finished export with its size and SHA-256 (the manifest last)."""
    files = {entry.name: {"bytes": entry.stat().st_size, "sha256": _digest(entry)}
             for entry in sorted(folder.iterdir()) if entry.name != MANIFEST}
    (folder / MANIFEST).write_text(json.dumps({"format": MANIFEST_FORMAT, "files": files}, indent=1) + "\n",
                                   encoding="utf-8")


def backup_problem(folder: Path) -> str | None:
    """Why ``folder`` is not, file for file, what ``gpuvalue backup`` wrote; None when it is."""
    manifest_path = folder / MANIFEST
    if not manifest_path.is_file() or manifest_path.is_symlink():
        if (folder / "schema.sql").exists():
            return (f"{MANIFEST} is missing, so its files cannot be checked (a folder not written by this "
                    "gpuvalue's backup): make a new backup with `gpuvalue backup`")
        return "no schema.sql"
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if manifest.get("format") != MANIFEST_FORMAT:
            raise ValueError(manifest.get("format"))
        listed = {str(name): (int(entry["bytes"]), str(entry["sha256"])) for name, entry in manifest["files"].items()}
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return f"{MANIFEST} is not a backup manifest"
    present = {}
    for entry in folder.iterdir():
        if entry.name == MANIFEST:
            continue
        mode = entry.lstat().st_mode
        if not stat.S_ISREG(mode):
            return f"{entry.name} is not a plain file (a link, a folder or a device), so it was not written by backup"
        present[entry.name] = entry
    if extra := sorted(set(present) - set(listed)):
        return f"{extra[0]} is not in its manifest{f' (and {len(extra) - 1} more)' if len(extra) > 1 else ''}"
    if missing := sorted(set(listed) - set(present)):
        return f"{missing[0]} of its manifest is missing"
    if not {"schema.sql", "load.sql"} <= set(listed):
        return "its manifest lists no schema.sql and load.sql"
    for name, (size, sha) in sorted(listed.items()):
        if present[name].stat().st_size != size or _digest(present[name]) != sha:
            return f"{name} differs from what backup wrote (its digest in {MANIFEST})"
    return None


def _statements_problem(con: duckdb.DuckDBPyConnection, folder: Path) -> str | None:
    """Why the folder's SQL holds a statement an export never writes, or None: schema.sql only
    creates (tables, views, macros, sequences, indexes, types), load.sql only copies from its files."""
    schema = con.extract_statements((folder / "schema.sql").read_text(encoding="utf-8"))
    for statement in schema:
        if statement.type != duckdb.StatementType.CREATE:
            return f"schema.sql holds a {statement.type.name} statement; a backup's schema only creates"
    names = {entry.name for entry in folder.iterdir()}
    for statement in con.extract_statements((folder / "load.sql").read_text(encoding="utf-8")):
        found = _LOAD_STATEMENT.fullmatch(statement.query)
        if statement.type != duckdb.StatementType.COPY or found is None:
            return f"load.sql holds {statement.query.strip()[:60]!r}; a backup's load only copies its own files in"
        if Path(found.group(1).replace("''", "'")).name not in names:
            return f"load.sql reads {found.group(1)[:80]!r}, which is not a file of the backup"
    return None


def _sandboxed(db_path: Path, folder: Path) -> duckdb.DuckDBPyConnection:
    """A connection to a new database file that may read files in ``folder`` alone, write none
    outside its own database, attach nothing and load no extension: settings locked."""
    config: dict[str, str | bool | int | float | list[str]] = {**NO_EXTENSION_DOWNLOADS, **storage_config()}
    con = duckdb.connect(str(db_path), config=config)
    try:
        con.execute("SET allowed_directories = ?", [[str(folder.resolve()) + os.sep]])
        con.execute("SET enable_external_access = false")
        con.execute("SET lock_configuration = true")
    except BaseException:
        con.close()
        raise
    return con


def restore_database(from_dir: Path, db_path: Path) -> None:
    if not from_dir.is_dir():
        raise ValueError(f"{from_dir} is not a gpuvalue backup (no schema.sql)")
    problem = backup_problem(from_dir)
    if problem == "no schema.sql":
        raise ValueError(f"{from_dir} is not a gpuvalue backup (no schema.sql)")
    if problem is not None:
        raise ValueError(f"{from_dir} is not as gpuvalue backup wrote it: {problem}; nothing was restored")
    if db_path.exists():
        raise ValueError(f"{db_path} exists; restore into a new database file")
    db_path.parent.mkdir(parents=True, exist_ok=True)
    con = _sandboxed(db_path, from_dir)  # in the format every DuckDB client reads
    try:
        if (refused := _statements_problem(con, from_dir)) is not None:
            raise ValueError(f"{from_dir} is not as gpuvalue backup wrote it: {refused}; nothing was restored")
        con.execute(f"IMPORT DATABASE {_quoted_path(from_dir.resolve())}")
        con.close()
        open_database(db_path).close()  # refuses a backup from a newer schema, upgrades an older one
    except Exception as exc:
        con.close()
        for leftover in (db_path, Path(str(db_path) + ".wal")):  # never leave a half-restored file behind
            leftover.unlink(missing_ok=True)
        if isinstance(exc, duckdb.Error):
            raise ValueError(f"{from_dir} could not be restored: {str(exc).splitlines()[0]}") from None
        raise
