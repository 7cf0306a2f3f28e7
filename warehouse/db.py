"""Opening the warehouse: migrations, the single-writer lock, and read-only readers.

DuckDB lets one process hold a database for writing. The pipeline therefore holds its write
connection only while it loads, guards the whole run with a lock file that records its process
id, and readers that meet a running load wait briefly and then refuse with a clear message
instead of reading a half-written day.

Migrating a file has two steps, both when it is opened for writing: its storage format (a file
a newer DuckDB wrote in a format older clients refuse is copied into ``STORAGE_VERSION``, see
``migrate_storage``), then its schema: the model files of ``models/`` (``warehouse/layers.py``) and, for a database an
older gpuvalue wrote, the numbered changes to stored tables in ``migrations/``.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import re
import time
from collections.abc import Callable
from datetime import datetime, timezone
from functools import cache
from importlib import resources
from pathlib import Path

import duckdb

from gpuvalue.warehouse import layers
from gpuvalue.warehouse.environment import (
    corruption_problem, environment_problem, is_environment_failure, looks_corrupted,
)
from gpuvalue.warehouse.paths import file_problem
from gpuvalue.warehouse.sql_files import rows, run, scalar, split_statements
from gpuvalue.warehouse.transactions import transaction as _transaction

MIGRATIONS_PACKAGE = "gpuvalue.warehouse"
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")

# The storage format the warehouse is written in. People open it with whatever DuckDB their
# CLI, notebook or BI tool ships, and DuckDB 2.x by default writes its own 2.0 format, which
# DuckDB 1.5 and the 1.4 LTS refuse ("... created with a newer version of DuckDB"). v1.4.0 is
# the newest format the 1.4 LTS line reads: every DuckDB from 1.4.0 on (1.4 LTS, 1.5, 2.x) opens
# the file, and it keeps the storage improvements up to 1.4. An older format would only add
# DuckDB releases that are out of support, at the cost of those improvements.
STORAGE_VERSION = "v1.4.0"
_VERSION_NUMBERS = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")


class WarehouseError(RuntimeError):
    """A problem with the database file that the user has to act on."""


class SchemaTooNewError(WarehouseError):
    pass


class DatabaseBusyError(WarehouseError):
    pass


class RunLockedError(WarehouseError):
    pass


class DatabaseCorruptError(WarehouseError):
    """The file's bytes are damaged: only a backup brings its data back."""


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every shipped migration, in order."""
    return list(_shipped_migrations())


@cache
def _shipped_migrations() -> tuple[tuple[int, str, str], ...]:
    """Read once a process: every open asks for them three times (fourteen files each)."""
    folder = resources.files(MIGRATIONS_PACKAGE).joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            found.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return tuple(sorted(found))


def schema_version_supported() -> int:
    return migrations()[-1][0]


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    if not scalar(con, "schema_version_table_exists"):
        return 0
    return int(scalar(con, "schema_version_current") or 0)


def _rebuild_rental_prices(con: duckdb.DuckDBPyConnection) -> None:
    from gpuvalue.warehouse.rental import rebuild_rental_prices

    rebuild_rental_prices(con)


def _rebuild_price_observations(con: duckdb.DuckDBPyConnection) -> None:
    run(con, "rebuild_price_observations")


# Derived tables a migration's new rule changes, rebuilt by their own SQL once the views are current,
# in the upgrade's transaction (a migration file cannot take the rule's parameters): stored rows would
# otherwise follow the old rule until the next load, and the integrity checks would fail on them.
_REBUILT_AFTER_MIGRATION = {5: _rebuild_price_observations, 18: _rebuild_rental_prices}


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Bring the schema up to date; refuse a database written by a newer gpuvalue.

    A new database is built from the model files (``warehouse/layers.py``) and records every
    version. An older one gets, in one transaction: the tables it lacks from their model files, each
    newer migration's changes to its stored tables, every view and macro from its file, and the
    derived tables those versions' rules changed, rebuilt. An up-to-date one gets its views and
    macros recreated where they are not their files', so what it stores is what the files say."""
    have = current_version(con)
    supported = schema_version_supported()
    if have > supported:
        raise SchemaTooNewError(
            f"this database has schema version {have}, but this gpuvalue supports up to {supported}: "
            "upgrade gpuvalue, or restore a backup made for this version (gpuvalue backup/restore)"
        )
    pending = [(version, name, text) for version, name, text in migrations() if version > have]
    if not pending:
        with _transaction(con):
            layers.refresh(con)
        return supported
    con.execute("BEGIN TRANSACTION")
    try:
        if have == 0:
            run(con, "schema_version_create")
        layers.create_tables(con)
        if have > 0:
            for _version, _name, text in pending:
                for statement in split_statements(text):
                    con.execute(statement)
            # What a record declares and no migration added (a new nullable field), after the
            # migrations: an older table they rebuild must not meet a column it does not know.
            from gpuvalue.warehouse import record_tables  # a writer's work: pyarrow and the records

            record_tables.add_declared_columns(con)
        layers.create_views(con)
        for version, name, _text in pending:
            if have > 0 and version in _REBUILT_AFTER_MIGRATION:
                _REBUILT_AFTER_MIGRATION[version](con)
            run(con, "schema_version_record", [version, name, datetime.now(timezone.utc).replace(tzinfo=None)])
        con.execute("COMMIT")
    except Exception:
        con.execute("ROLLBACK")
        raise
    return schema_version_supported()


def _version_tuple(text: str | None) -> tuple[int, int, int] | None:
    found = _VERSION_NUMBERS.match(text or "")
    return tuple(int(part) for part in found.groups()) if found else None  # type: ignore[return-value]


def storage_config() -> dict[str, str | bool | int | float | list[str]]:
    """The connection settings that make DuckDB write a new file in ``STORAGE_VERSION``.

    DuckDB before 1.4 does not know that version, and writes an older format anyway.
    """
    running, target = _version_tuple(duckdb.__version__), _version_tuple(STORAGE_VERSION)
    if running is None or target is None or running < target:
        return {}
    return {"storage_compatibility_version": STORAGE_VERSION}


def storage_version(con: duckdb.DuckDBPyConnection) -> str | None:
    """The storage format of the connection's database, as DuckDB reports it (e.g. 'v1.4.0+')."""
    try:
        return scalar(con, "storage_version")
    except duckdb.Error:  # a DuckDB that does not report it
        return None


def _connect(path: Path, read_only: bool, wait_s: float,
             waiting: Callable[[str, float], None] | None = None) -> duckdb.DuckDBPyConnection:
    """``waiting(holder, waited_s)`` is told about every pause for another process's hold."""
    started = time.monotonic()
    deadline = started + wait_s
    while True:
        try:
            config: dict[str, str | bool | int | float | list[str]] = {
                **NO_EXTENSION_DOWNLOADS, **({} if read_only else storage_config())}
            return duckdb.connect(str(path), read_only=read_only, config=config)
        except duckdb.Error as exc:
            text = str(exc)
            held = isinstance(exc, duckdb.IOException) and _LOCK_WORD.search(text.lower()) is not None
            if held and time.monotonic() < deadline:
                if waiting is not None:
                    waiting(_holder_words(path, text), time.monotonic() - started)
                time.sleep(0.2)
                continue
            if held:
                # DuckDB names the holder's process, not whether it is one of ours: a reader such as
                # `duckdb -readonly` keeps a writer out as a load keeps a reader out.
                raise DatabaseBusyError(
                    f"{path} is in use by {_holder_words(path, text)}: a running gpuvalue load, or a program "
                    "that has it open (such as the duckdb CLI); try again when it is done"
                ) from None
            raise _opened_but_unreadable(path, exc) from None


# Every extension gpuvalue uses is built into DuckDB's wheel (parquet, json, icu): a query or a
# database name that asks for another (``md:`` for MotherDuck, ``s3://``) fails instead of fetching one.
NO_EXTENSION_DOWNLOADS: dict[str, str | bool] = {"autoinstall_known_extensions": False,
                                                  "autoload_known_extensions": False}


def _holder_words(path: Path, message: str) -> str:
    """Who holds the database, as DuckDB's message and the run lock tell: "a gpuvalue import (PID 12)"
    when the lock names the process, else "another process (PID 12)"."""
    found = _LOCK_HOLDER.search(message)
    if not found:
        return "another process"
    pid = int(found.group(1))
    lock = RunLock(path).holder()
    if lock is not None and lock_record_pid(lock) == pid:
        return f"a gpuvalue {holder_word(lock)} (PID {pid})"
    return f"another process (PID {pid})"


_LOCK_WORD = re.compile(r"\block\b")  # "Could not set lock on file", never the "block" of a damaged file
_LOCK_HOLDER = re.compile(r"\(PID (\d+)\)")
_DUCKDB_MAGIC = b"DUCK"  # bytes 8-11 of every DuckDB database file


def _not_a_database(path: Path) -> bool:
    """An existing file DuckDB would not open as its database: DuckDB opens some other files (a
    .csv, a .parquet) as an in-memory database over them, where writes vanish at exit."""
    try:
        with path.open("rb") as f:
            head = f.read(12)
    except OSError:
        return False  # DuckDB's own error says why
    return len(head) > 0 and head[8:12] != _DUCKDB_MAGIC


def open_database(path: str | Path, *, read_only: bool = False, wait_s: float = 10.0,
                  waiting: Callable[[str, float], None] | None = None) -> duckdb.DuckDBPyConnection:
    """A migrated connection. ':memory:' is allowed for tests.

    ``waiting(holder, waited_s)`` hears of each pause while another process holds the file."""
    if str(path) == ":memory:":
        con = duckdb.connect(":memory:")
        migrate(con)
        return con
    problem = file_problem(path, sibling_suffixes=True)
    if problem is not None and not Path(path).is_dir():  # a directory: said below, with what to give
        raise WarehouseError(f"the database path {str(path)[:80]!r} {problem} (--db or GPUVALUE_DB)")
    path = Path(path)
    if path.is_dir():
        raise WarehouseError(f"{path} is a directory, not a DuckDB database file: give a file path (--db or GPUVALUE_DB)")
    if path.is_file() and _not_a_database(path):
        raise WarehouseError(f"{path} is not a DuckDB database file: give the warehouse's path (--db or GPUVALUE_DB)")
    if read_only:
        if not path.exists():
            raise WarehouseError(f"no database at {path}: run `gpuvalue run` (or `gpuvalue run --replay`) first")
        con = _connect(path, True, wait_s, waiting)
        try:
            have, supported = current_version(con), schema_version_supported()
        except duckdb.Error as exc:
            con.close()
            raise _opened_but_unreadable(path, exc) from None
        if have > supported:
            con.close()
            raise SchemaTooNewError(
                f"this database has schema version {have}, but this gpuvalue supports up to {supported}"
            )
        if have < supported:
            con.close()
            raise WarehouseError(
                f"{path} has schema version {have}; run `gpuvalue run` once to upgrade it to {supported}"
            )
        return con
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise WarehouseError(f"cannot create the folder of {path}: "
                             f"{environment_problem(exc, path.parent).split(': ', 1)[1]}") from None
    con = _connect(path, False, wait_s, waiting)
    try:
        con = migrate_storage(con, path, wait_s)
        migrate(con)
    except Exception as exc:
        con.close()
        if isinstance(exc, duckdb.Error) and (looks_corrupted(exc) or is_environment_failure(exc)):
            raise _opened_but_unreadable(path, exc) from None
        raise  # a migration's own error: a bug to see whole
    return con


def _opened_but_unreadable(path: Path, exc: duckdb.Error) -> WarehouseError:
    """A file DuckDB opened but could not read or migrate: damaged, a full disk, or another error."""
    if looks_corrupted(exc):
        return DatabaseCorruptError(corruption_problem(path, exc))
    if is_environment_failure(exc):
        return WarehouseError(environment_problem(exc, path))
    return WarehouseError(f"cannot open {path}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}")


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _table_counts(con: duckdb.DuckDBPyConnection, database: str) -> dict[str, int]:
    counts = {}
    for schema, table in rows(con, "storage_copy_tables", [database]):
        qualified = f"{_ident(database)}.{_ident(schema)}.{_ident(table)}"
        count = f"SELECT count(*) FROM {qualified}"  # SQL built from identifiers: each table of the copy and original
        (counts[f"{schema}.{table}"],) = con.execute(count).fetchone() or (0,)
    return counts


def _view_names(con: duckdb.DuckDBPyConnection, database: str) -> list[str]:
    return [name for (name,) in rows(con, "storage_copy_views", [database])]


def migrate_storage(con: duckdb.DuckDBPyConnection, path: Path, wait_s: float = 10.0) -> duckdb.DuckDBPyConnection:
    """Rewrite a file stored in a format newer than ``STORAGE_VERSION``; return a connection to it.

    The copy is made beside the file through the connection that holds it, so no other
    process can write to it meanwhile (every table, view and constraint, with ATTACH and COPY
    FROM DATABASE), is checked table by table against it, and then replaces it in one rename:
    a failure at any point leaves the original as it was.
    """
    have, target = _version_tuple(storage_version(con)), _version_tuple(STORAGE_VERSION)
    if have is None or target is None or not storage_config() or have <= target:
        return con
    tmp = path.with_name(path.name + ".storage-tmp")
    leftovers = (tmp, Path(str(tmp) + ".wal"))
    for leftover in leftovers:
        leftover.unlink(missing_ok=True)
    copy = "gpuvalue_storage_copy"
    try:
        try:
            source = scalar(con, "storage_copy_source")
            con.execute(f"ATTACH {_literal(str(tmp))} AS {copy} (STORAGE_VERSION {_literal(STORAGE_VERSION)})")
            con.execute(f"COPY FROM DATABASE {_ident(source)} TO {copy}")
            same = (_table_counts(con, source) == _table_counts(con, copy)
                    and _view_names(con, source) == _view_names(con, copy))
            con.execute(f"CHECKPOINT {copy}")
            con.execute(f"DETACH {copy}")
            if not same:
                raise WarehouseError(f"the copy of {path} in DuckDB storage {STORAGE_VERSION} differs from it; "
                                     "the original is unchanged")
            con.execute("CHECKPOINT")  # the original has nothing left in a WAL that would outlive it
        finally:
            con.close()
        for wal in (Path(str(path) + ".wal"), leftovers[1]):
            if wal.exists():
                raise WarehouseError(f"cannot convert {path} to DuckDB storage {STORAGE_VERSION}: {wal} remains; "
                                     "the original is unchanged")
        os.replace(tmp, path)
    except Exception as exc:
        for leftover in leftovers:
            leftover.unlink(missing_ok=True)
        if isinstance(exc, duckdb.Error):
            raise WarehouseError(f"cannot convert {path} to DuckDB storage {STORAGE_VERSION}: "
                                 f"{str(exc).splitlines()[0]}; the original is unchanged") from None
        raise
    return _connect(path, False, wait_s)


def open_sandboxed_reader(path: str | Path, wait_s: float = 10.0, *, memory_limit: str | None = None,
                          temp_limit: str | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only connection for user SQL that can neither write, attach nor touch files, nor use
    more memory or spill space than its limits (locked with the rest)."""
    con = open_database(path, read_only=True, wait_s=wait_s)
    if memory_limit is not None:
        con.execute(f"SET memory_limit = {_literal(memory_limit)}")
    if temp_limit is not None:
        con.execute(f"SET max_temp_directory_size = {_literal(temp_limit)}")
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def pid_alive(pid: int) -> bool:
    """Whether a process with this id runs (one of another user's counts: signalling it is refused, not failed)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


def holder_word(holder: dict) -> str:
    """The kind of gpuvalue command a lock record names, in one word ("import", "run"); a lock
    written before records named their command says "command"."""
    word = str(holder.get("command") or "command")
    return word if word.isascii() and word.isalpha() else "command"


def lock_record_pid(holder: dict | None) -> int | None:
    """The process id a lock record names, or None where it names none a number can be read from."""
    pid = (holder or {}).get("pid")
    if isinstance(pid, bool):
        return None
    if isinstance(pid, int):
        return pid
    if isinstance(pid, str) and pid.strip().isdigit():
        return int(pid)
    return None


class RunLock:
    """The run lock: an operating-system lock (``flock``) on a file beside the database.

    The kernel holds it for the open file, so it ends with its process however that process ends
    (killed, crashed, a zombie not yet reaped), and two processes can never hold it at once. The file's
    contents (the holder's pid, start and kind of command) are for messages only: a stale record, one
    naming a live unrelated process, or one that is not JSON never decides who holds the lock.
    The file is removed on release; a taker checks that the file it locked is still the one at the
    path, so a removal racing a taker never leaves two holders.
    """

    def __init__(self, db_path: str | Path, command: str = "run") -> None:
        self.path = Path(str(db_path) + ".lock")
        self.command = command  # one word for the kind of holder: run, import, rematch, reparse, measure
        self.acquired = False
        self._fd: int | None = None

    def _record(self) -> dict | None:
        try:
            record = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return record if isinstance(record, dict) else None

    def held(self) -> bool:
        """Whether some open file holds the lock (this process's own hold included)."""
        if self.acquired:
            return True
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # closing drops the probe's shared lock
        return False

    def holder(self) -> dict | None:
        """The record of the process holding the lock now, or None when nobody holds it (a file left
        behind says nothing). A holder whose record cannot be read is ``{}``."""
        if not self.held():
            return None
        return self._record() or {}

    def held_elsewhere(self) -> str | None:
        """Why another process holds the lock, or None: asked before a run starts its work, so that a
        second run is refused in one line rather than from inside its flow."""
        holder = None if self.acquired else self.holder()
        if holder is None:
            return None
        pid = lock_record_pid(holder)
        if pid == os.getpid():
            return None
        started = holder.get("started_at")
        named = f"pid {pid}" if pid is not None else "pid unknown"
        since = f", started {started}" if isinstance(started, str) else ""
        return (f"another gpuvalue {holder_word(holder)} ({named}{since}) is using "
                f"{self.path.with_suffix('')}; wait for it to finish")

    def acquire(self) -> None:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise WarehouseError(environment_problem(exc, self.path.parent)) from None
        for _ in range(50):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            except OSError as exc:  # a read-only folder: nothing was created
                raise WarehouseError(environment_problem(exc, self.path)) from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                busy = self.held_elsewhere() or (f"another gpuvalue command is using {self.path.with_suffix('')}; "
                                                 "wait for it to finish")
                raise RunLockedError(busy) from None
            if not self._still_at_path(fd):  # removed by a releasing holder meanwhile: lock the new file
                os.close(fd)
                continue
            record = json.dumps({"pid": os.getpid(), "started_at": datetime.now(timezone.utc).isoformat(),
                                 "command": self.command}).encode()
            try:
                os.ftruncate(fd, 0)
                os.pwrite(fd, record, 0)
                os.fsync(fd)
            except OSError as exc:  # a full disk: the lock is not taken, and no empty file is left
                with contextlib.suppress(OSError):
                    self.path.unlink()
                os.close(fd)
                raise WarehouseError(environment_problem(exc, self.path)) from None
            self._fd = fd
            self.acquired = True
            return
        raise RunLockedError(f"could not take the run lock {self.path}")

    def _still_at_path(self, fd: int) -> bool:
        try:
            at_path = os.stat(self.path)
        except FileNotFoundError:
            return False
        held = os.fstat(fd)
        return (at_path.st_dev, at_path.st_ino) == (held.st_dev, held.st_ino)

    def release(self) -> None:
        if self.acquired and self._fd is not None:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()  # still holding it: a taker that opened the old file sees it gone
            os.close(self._fd)
            self._fd = None
        self.acquired = False

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def integrity_check(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Problems found (empty when healthy): the SQL checks of ``warehouse/checks/``."""
    from gpuvalue.warehouse.checks import failures

    return failures(con)
