"""Opening the warehouse: schema versions in both directions, a migration that fails, the write
connection and the sandboxed reader, on small warehouses built from the migrations. (Readers
meeting a running load and the run lock between processes are in test_lock.py.)"""

from __future__ import annotations

from contextlib import closing

import duckdb
import pytest

from gpuvalue.warehouse import db as W
from gpuvalue.warehouse.db import (
    SchemaTooNewError,
    WarehouseError,
    open_database,
    open_sandboxed_reader,
    schema_version_supported,
)


def _set_version(path, version: int) -> None:
    with closing(duckdb.connect(str(path))) as con:
        con.execute("DELETE FROM schema_version WHERE version > ?", [version])
        if version > schema_version_supported():
            con.execute("INSERT INTO schema_version VALUES (?, 'from the future', now())", [version])


def test_every_migration_is_applied_once_in_order(tmp_path):
    path = tmp_path / "g.duckdb"
    with closing(open_database(path)) as con:
        versions = [v for (v,) in con.execute("SELECT version FROM schema_version ORDER BY version").fetchall()]
    # Each change is given its number when it is planned, so a number may wait for its change to land:
    # the shipped ones are applied once each, in order, the newest being the version supported.
    assert versions == [v for v, _, _ in W.migrations()] == sorted(set(versions))
    assert versions[0] == 1 and versions[-1] == schema_version_supported()
    with closing(open_database(path)) as con:  # opening again applies nothing twice
        assert con.execute("SELECT count(*) FROM schema_version").fetchone()[0] == len(versions)


def test_a_newer_warehouse_is_refused_for_reading_and_writing(tmp_path):
    path = tmp_path / "g.duckdb"
    open_database(path).close()
    _set_version(path, schema_version_supported() + 1)
    for read_only in (True, False):
        with pytest.raises(SchemaTooNewError, match="upgrade gpuvalue|supports up to"):
            open_database(path, read_only=read_only)


def test_an_older_or_missing_warehouse_is_refused_by_a_reader(tmp_path):
    # (A writer upgrades an older one: test_price_observations upgrades a schema v4 warehouse.)
    path = tmp_path / "g.duckdb"
    open_database(path).close()
    _set_version(path, schema_version_supported() - 1)
    with pytest.raises(WarehouseError, match="run `gpuvalue run` once to upgrade it"):
        open_database(path, read_only=True)
    with pytest.raises(WarehouseError, match="no database at"):
        open_database(tmp_path / "missing.duckdb", read_only=True)


def test_a_failing_migration_leaves_the_schema_as_it_was(tmp_path, monkeypatch):
    path = tmp_path / "g.duckdb"
    open_database(path).close()
    shipped = W.migrations()
    broken = (shipped[-1][0] + 1, "999_broken.sql", "CREATE TABLE half_done (x INTEGER); SELECT no_such_column FROM gpus;")
    monkeypatch.setattr(W, "migrations", lambda: [*shipped, broken])
    with pytest.raises(duckdb.Error):
        open_database(path)
    monkeypatch.undo()
    with closing(duckdb.connect(str(path), read_only=True)) as con:
        assert con.execute("SELECT max(version) FROM schema_version").fetchone()[0] == shipped[-1][0]
        assert not con.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'half_done'").fetchone()[0]


@pytest.mark.parametrize("statement", [
    "DELETE FROM gpus",
    "CREATE TABLE evil (x INTEGER)",
    "COPY gpus TO '{out}'",
    "SELECT * FROM read_csv_auto('{out}')",
    "SET enable_external_access = true",
])
def test_the_sandboxed_reader_reads_and_nothing_else(tmp_path, statement):
    path = tmp_path / "g.duckdb"
    open_database(path).close()
    (tmp_path / "x.csv").write_text("a\n1\n")
    with closing(open_sandboxed_reader(path)) as con:
        assert con.execute("SELECT count(*) FROM gpus").fetchone() == (0,)
        with pytest.raises(duckdb.Error):
            con.execute(statement.format(out=tmp_path / "x.csv"))


@pytest.mark.parametrize("read_only", [False, True])
def test_a_file_that_is_not_a_duckdb_database_is_refused_in_one_line(tmp_path, read_only):
    """DuckDB opens a .csv as an in-memory database over it: an import given `--db x.csv` said it
    imported, and nothing was stored anywhere; a reader failed with a traceback."""
    csv = tmp_path / "sales.csv"
    csv.write_text("title,price\nRTX 3080,500\n")
    with pytest.raises(W.WarehouseError, match=r"sales\.csv is not a DuckDB database file"):
        W.open_database(csv, read_only=read_only)
    assert csv.read_text() == "title,price\nRTX 3080,500\n"


def test_a_database_another_program_holds_is_refused_naming_its_process_not_a_load(tmp_path):
    """A `duckdb -readonly` session keeps a writer out; the refusal said a gpuvalue load was writing."""
    import subprocess
    import sys

    path = tmp_path / "w.duckdb"
    W.open_database(path).close()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1], "
                               "read_only=True); print('open', flush=True); time.sleep(30)", str(path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "open"
        with pytest.raises(W.DatabaseBusyError) as err:
            W.open_database(path, wait_s=0)
        assert f"in use by another process (PID {holder.pid})" in str(err.value)
    finally:
        holder.kill()
        holder.wait()
