"""Opening the warehouse: migrations, the single-writer lock, and read-only readers.

DuckDB lets one process hold a database for writing. The pipeline therefore holds its write
connection only while it loads, guards the whole run with a lock file that records its process
id, and readers that meet a running load wait briefly and then refuse with a clear message
instead of reading a half-written day.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import time
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path

import duckdb

MIGRATIONS_PACKAGE = "gpuvalue.warehouse"
_MIGRATION_NAME = re.compile(r"^(\d{3})_[a-z0-9_]+\.sql$")


class WarehouseError(RuntimeError):
    """A problem with the database file that the user has to act on."""


class SchemaTooNewError(WarehouseError):
    pass


class DatabaseBusyError(WarehouseError):
    pass


class RunLockedError(WarehouseError):
    pass


def migrations() -> list[tuple[int, str, str]]:
    """(version, name, sql) for every shipped migration, in order."""
    folder = resources.files(MIGRATIONS_PACKAGE).joinpath("migrations")
    found = []
    for entry in folder.iterdir():
        m = _MIGRATION_NAME.match(entry.name)
        if m:
            found.append((int(m.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found)


def schema_version_supported() -> int:
    return migrations()[-1][0]


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    exists = con.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = 'schema_version'"
    ).fetchall()[0][0]
    if not exists:
        return 0
    row = con.execute("SELECT max(version) FROM schema_version").fetchall()[0]
    return int(row[0] or 0)


def migrate(con: duckdb.DuckDBPyConnection) -> int:
    """Bring the schema up to date; refuse a database written by a newer gpuvalue."""
    have = current_version(con)
    supported = schema_version_supported()
    if have > supported:
        raise SchemaTooNewError(
            f"this database has schema version {have}, but this gpuvalue supports up to {supported}: "
            "upgrade gpuvalue, or restore a backup made for this version (gpuvalue backup/restore)"
        )
    if have == 0:
        con.execute(
            "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL, name VARCHAR NOT NULL, "
            "applied_at TIMESTAMP NOT NULL)"
        )
    for version, name, sql in migrations():
        if version <= have:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            con.execute(sql)
            con.execute(
                "INSERT INTO schema_version VALUES (?, ?, ?)",
                [version, name, datetime.now(timezone.utc).replace(tzinfo=None)],
            )
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
    return schema_version_supported()


def _connect(path: Path, read_only: bool, wait_s: float) -> duckdb.DuckDBPyConnection:
    deadline = time.monotonic() + wait_s
    while True:
        try:
            return duckdb.connect(str(path), read_only=read_only)
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower() or time.monotonic() >= deadline:
                if "lock" in str(exc).lower():
                    raise DatabaseBusyError(
                        f"{path} is being written by a running gpuvalue load; try again in a minute"
                    ) from None
                raise WarehouseError(f"cannot open {path}: {exc}") from None
            time.sleep(0.2)


def open_database(path: str | Path, *, read_only: bool = False, wait_s: float = 10.0) -> duckdb.DuckDBPyConnection:
    """A migrated connection. ':memory:' is allowed for tests."""
    if str(path) == ":memory:":
        con = duckdb.connect(":memory:")
        migrate(con)
        return con
    path = Path(path)
    if read_only:
        if not path.exists():
            raise WarehouseError(f"no database at {path}: run `gpuvalue run` (or `gpuvalue run --replay`) first")
        con = _connect(path, True, wait_s)
        have, supported = current_version(con), schema_version_supported()
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
    path.parent.mkdir(parents=True, exist_ok=True)
    con = _connect(path, False, wait_s)
    try:
        migrate(con)
    except Exception:
        con.close()
        raise
    return con


def open_sandboxed_reader(path: str | Path, wait_s: float = 10.0) -> duckdb.DuckDBPyConnection:
    """A read-only connection for user SQL that can neither write, attach nor touch files."""
    con = open_database(path, read_only=True, wait_s=wait_s)
    con.execute("SET enable_external_access = false")
    con.execute("SET lock_configuration = true")
    return con


def _pid_alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


class RunLock:
    """A lock file beside the database, holding the pid of the run that owns it.

    A lock whose process is gone (killed, crashed) is taken over, so a SIGKILL never wedges the
    pipeline.
    """

    def __init__(self, db_path: str | Path) -> None:
        self.path = Path(str(db_path) + ".lock")
        self.acquired = False

    def holder(self) -> dict | None:
        try:
            return json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        for _ in range(3):
            try:
                fd = os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644)
            except FileExistsError:
                holder = self.holder()
                pid = int(holder.get("pid", -1)) if holder else -1
                if holder is not None and _pid_alive(pid) and pid != os.getpid():
                    raise RunLockedError(
                        f"another gpuvalue run (pid {pid}, started {holder.get('started_at')}) is using "
                        f"{self.path.with_suffix('')}; wait for it to finish"
                    ) from None
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                continue
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"pid": os.getpid(), "started_at": datetime.now(timezone.utc).isoformat()}, fh)
            self.acquired = True
            return
        raise RunLockedError(f"could not take the run lock {self.path}")

    def release(self) -> None:
        if self.acquired:
            with contextlib.suppress(FileNotFoundError):
                self.path.unlink()
            self.acquired = False

    def __enter__(self) -> RunLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def integrity_check(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Problems found (empty when healthy): key uniqueness, references the ranking relies on, and
    the derived price observations agreeing with the listings they come from."""
    problems = []
    checks = {
        "duplicate listings": "SELECT count(*) FROM (SELECT source, listing_id FROM listings GROUP BY ALL HAVING count(*) > 1)",
        "duplicate listing snapshots": "SELECT count(*) FROM (SELECT source, listing_id, seen_date FROM listing_snapshots "
                                       "GROUP BY ALL HAVING count(*) > 1)",
        "duplicate ranking rows": "SELECT count(*) FROM (SELECT as_of, model FROM ranking_daily GROUP BY ALL HAVING count(*) > 1)",
        "ranked models missing from catalog": "SELECT count(*) FROM ranking_daily r ANTI JOIN gpus g USING (model)",
        "ranking days with gaps in rank": "SELECT count(*) FROM (SELECT as_of FROM ranking_daily GROUP BY as_of HAVING max(rank) <> count(*))",
        "price observations out of step with listings": (
            "SELECT count(*) FROM ((SELECT * FROM price_observations EXCEPT ALL SELECT * FROM stg_price_observations) "
            "UNION ALL (SELECT * FROM stg_price_observations EXCEPT ALL SELECT * FROM price_observations))"),
        "price observation days miscounted": (
            "SELECT count(*) FROM ((SELECT model, kind, obs_date, n FROM price_observation_days EXCEPT ALL "
            "SELECT model, kind, obs_date, count(*) FROM price_observations GROUP BY ALL) UNION ALL "
            "(SELECT model, kind, obs_date, count(*) FROM price_observations GROUP BY ALL EXCEPT ALL "
            "SELECT model, kind, obs_date, n FROM price_observation_days))"),
    }
    for name, sql in checks.items():
        n = con.execute(sql).fetchall()[0][0]
        if n:
            problems.append(f"{name}: {n}")
    return problems
