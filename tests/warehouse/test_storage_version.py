"""The warehouse is written in a storage format every maintained DuckDB reads (1.4 LTS and later).

A file a newer DuckDB wrote in its own format is converted when gpuvalue next opens it for
writing, with nothing lost; a DuckDB 1.4 client then opens it and runs the README's queries.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import textwrap
from pathlib import Path

import duckdb
import pytest
from conftest import REPO
from conftest_exports import fill_ranking_database

from gpuvalue.warehouse import db as warehouse_db
from gpuvalue.warehouse.db import STORAGE_VERSION, WarehouseError, migrate, open_database, storage_version


def _version(tag: str | None) -> tuple[int, ...]:
    return tuple(int(x) for x in re.match(r"v(\d+)\.(\d+)\.(\d+)", tag).groups())


def _snapshot(path: Path) -> dict:
    con = duckdb.connect(str(path), read_only=True)
    try:
        tables = [t for (t,) in con.execute("SELECT table_name FROM duckdb_tables() ORDER BY 1").fetchall()]
        return {
            "counts": {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables},
            "ranking": con.execute("SELECT * FROM ranking_daily ORDER BY as_of, model").fetchall(),
            "schema_version": con.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall(),
            "views": con.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal ORDER BY 1").fetchall(),
            "constraints": con.execute("SELECT table_name, constraint_type, constraint_column_names "
                                       "FROM duckdb_constraints() ORDER BY ALL").fetchall(),
        }
    finally:
        con.close()


def _old_style_file(path: Path) -> Path:
    """A warehouse made the way gpuvalue made it before: DuckDB's default (newest) storage format."""
    con = duckdb.connect(str(path))
    try:
        if warehouse_db.storage_config() and _version(storage_version(con)) <= _version(STORAGE_VERSION):
            pytest.skip(f"this DuckDB ({duckdb.__version__}) writes {storage_version(con)} by default: nothing to convert")
        migrate(con)
        fill_ranking_database(con)
    finally:
        con.close()
    return path


def test_a_new_warehouse_is_written_in_the_compatible_format(tmp_path):
    if not warehouse_db.storage_config():
        pytest.skip(f"DuckDB {duckdb.__version__} predates {STORAGE_VERSION} and writes an older format")
    path = tmp_path / "gpuvalue.duckdb"
    con = open_database(path)
    try:
        fill_ranking_database(con)
        con.execute("CHECKPOINT")
        assert storage_version(con) == f"{STORAGE_VERSION}+"
    finally:
        con.close()
    con = open_database(path)  # writing again keeps the format
    try:
        con.execute("DELETE FROM ranking_daily WHERE as_of = DATE '2024-05-01'")
        con.execute("CHECKPOINT")
        assert storage_version(con) == f"{STORAGE_VERSION}+"
    finally:
        con.close()


def test_a_file_in_the_newer_format_is_converted_with_nothing_lost(tmp_path):
    path = _old_style_file(tmp_path / "gpuvalue.duckdb")
    before = _snapshot(path)
    con = open_database(path)
    try:
        assert storage_version(con) == f"{STORAGE_VERSION}+"
        # The constraints came along: a duplicate key is still refused.
        with pytest.raises(duckdb.ConstraintException):
            con.execute("INSERT INTO ranking_daily SELECT * FROM ranking_daily LIMIT 1")
        assert con.execute("SELECT count(*) FROM ranking_latest").fetchone()[0] == 15  # the views read the copy
    finally:
        con.close()
    assert _snapshot(path) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gpuvalue.duckdb"]  # no copy or WAL left behind
    open_database(path).close()  # a second open has nothing to convert
    assert _snapshot(path) == before


def test_a_failed_conversion_leaves_the_original(tmp_path, monkeypatch):
    path = _old_style_file(tmp_path / "gpuvalue.duckdb")
    original = path.read_bytes()
    calls = []

    def counts_that_differ(con, database):
        calls.append(database)
        return {"main.listings": len(calls)}

    monkeypatch.setattr(warehouse_db, "_table_counts", counts_that_differ)
    with pytest.raises(WarehouseError, match="differs from it; the original is unchanged"):
        open_database(path)
    assert path.read_bytes() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gpuvalue.duckdb"]


def test_restore_writes_the_compatible_format(tmp_path):
    from gpuvalue.warehouse.maintenance import backup_database, restore_database

    if not warehouse_db.storage_config():
        pytest.skip(f"DuckDB {duckdb.__version__} predates {STORAGE_VERSION}")
    source = tmp_path / "a.duckdb"
    con = open_database(source)
    fill_ranking_database(con)
    con.close()
    backup_database(source, tmp_path / "backup")
    restore_database(tmp_path / "backup", tmp_path / "b.duckdb")
    con = duckdb.connect(str(tmp_path / "b.duckdb"), read_only=True)
    try:
        assert storage_version(con) == f"{STORAGE_VERSION}+"
    finally:
        con.close()


# --- an older DuckDB client opens it ----------------------------------------------------------------

CLIENT = textwrap.dedent(
    """
    import json, sys
    import duckdb
    print("CLIENT-READY", duckdb.__version__, flush=True)
    con = duckdb.connect(sys.argv[1], read_only=True)
    results = []
    for statement in con.extract_statements(open(sys.argv[2], encoding="utf-8").read()):
        results.append(len(con.execute(statement).fetchall()))
    results.append(con.execute("SELECT count(*) FROM ranking_latest").fetchone()[0])
    print("RESULTS", json.dumps(results), flush=True)
    """
)


def readme_queries() -> str:
    section = (REPO / "docs" / "schema.md").read_text(encoding="utf-8").split("## Six useful queries", 1)[1]
    return re.search(r"```sql\n(.*?)```", section, re.S).group(1)


@pytest.mark.e2e
@pytest.mark.parametrize("made", ["by gpuvalue", "converted"])
def test_a_duckdb_1_4_client_opens_the_warehouse_and_runs_the_readme_queries(tmp_path, made):
    uv = shutil.which("uv")
    if uv is None:
        pytest.skip("uv is not installed: it provides the DuckDB 1.4 client for this test")
    path = tmp_path / "gpuvalue.duckdb"
    if made == "converted":
        _old_style_file(path)
    con = open_database(path)
    try:
        if made == "by gpuvalue":
            fill_ranking_database(con)
    finally:
        con.close()
    queries = tmp_path / "readme.sql"
    queries.write_text(readme_queries(), encoding="utf-8")
    script = tmp_path / "client.py"
    script.write_text(CLIENT, encoding="utf-8")
    run = subprocess.run(
        [uv, "run", "--no-project", "--quiet", "--with", "duckdb==1.4.*", "python", str(script), str(path), str(queries)],
        capture_output=True, text=True, timeout=600, check=False, cwd=tmp_path,
    )
    if "CLIENT-READY" not in run.stdout:
        pytest.skip(f"uv could not provide DuckDB 1.4 (no package registry?): {run.stderr.strip()[-300:]}")
    assert run.stdout.split()[1].startswith("1.4."), run.stdout
    assert run.returncode == 0, run.stderr[-2000:]
    results = json.loads(run.stdout.split("RESULTS", 1)[1])
    assert len(results) == 7  # the six queries ran, and the latest ranking is all there
    assert results[0] > 0 and results[-1] == 15
