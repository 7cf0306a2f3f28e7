"""Restore only what backup wrote: a backup folder carries a manifest of its files' digests, restore
refuses a folder whose files differ from it, and the import runs with file access limited to that
folder, so a hostile folder (even with a manifest recomputed to match) restores nothing and reads or
writes no file outside it. It used to execute the folder's schema.sql as it stood: `read_csv` of any
file into the new database, `COPY ... TO` and `ATTACH` anywhere."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.maintenance import MANIFEST, backup_database, write_manifest
from tests.conftest_exports import make_ranking_database

runner = CliRunner()


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("pristine")
    db = root / "g.duckdb"
    make_ranking_database(db).close()
    backup_database(db, root / "bk")
    return root / "bk"


@pytest.fixture
def place(tmp_path, pristine):
    """A copy of the backup, a secret beside it, and a folder that must stay as it is."""
    bk = tmp_path / "bk"
    shutil.copytree(pristine, bk)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.csv").write_text("token,value\nkey,hunter2\n")
    return bk, outside


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _restore(bk: Path, target: Path):
    return runner.invoke(app, ["restore", "--from", str(bk), "--db", str(target)])


def _refused(res, fragment: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    assert fragment in " ".join(res.output.split()), res.output


def test_backup_writes_a_manifest_of_every_file(pristine):
    manifest = json.loads((pristine / MANIFEST).read_text())
    names = {p.name for p in pristine.iterdir()} - {MANIFEST}
    assert set(manifest["files"]) == names and {"schema.sql", "load.sql", "listings.parquet"} <= names
    assert all(len(entry["sha256"]) == 64 for entry in manifest["files"].values())


def test_an_untouched_backup_restores(place, tmp_path):
    bk, _ = place
    res = _restore(bk, tmp_path / "new.duckdb")
    assert res.exit_code == 0, res.output


@pytest.mark.parametrize("tamper, fragment", [
    (lambda bk, out: (bk / "schema.sql").write_text((bk / "schema.sql").read_text()
                                                    + f"CREATE TABLE stolen AS SELECT * FROM read_csv('{out}/secret.csv');\n"),
     "schema.sql differs from what backup wrote"),
    (lambda bk, out: (bk / "extra.parquet").write_bytes(b"PAR1"), "extra.parquet is not in its manifest"),
    (lambda bk, out: (bk / "perf.parquet").unlink(), "perf.parquet of its manifest is missing"),
    (lambda bk, out: ((bk / "gpus.parquet").unlink(), os.symlink(out / "secret.csv", bk / "gpus.parquet")),
     "gpus.parquet is not a plain file"),
    (lambda bk, out: (bk / MANIFEST).unlink(), "manifest.json is missing"),
    (lambda bk, out: (bk / MANIFEST).write_text("{"), "manifest.json is not a backup manifest"),
])
def test_a_folder_that_differs_from_its_manifest_restores_nothing(place, tmp_path, tamper, fragment):
    bk, outside = place
    tamper(bk, outside)
    before = _snapshot(outside)
    _refused(_restore(bk, tmp_path / "new.duckdb"), fragment)
    assert not (tmp_path / "new.duckdb").exists()
    assert _snapshot(outside) == before


def _rewritten(bk: Path, name: str, text: str) -> None:
    """What an attacker who also recomputes the manifest leaves."""
    (bk / name).write_text(text)
    (bk / MANIFEST).unlink()
    write_manifest(bk)


@pytest.mark.parametrize("name, added, fragment", [
    ("schema.sql", "CREATE TABLE stolen AS SELECT * FROM read_csv('{out}/secret.csv');",
     "file system operations are disabled"),
    ("schema.sql", "CREATE VIEW stolen AS SELECT * FROM read_text('{out}/secret.csv');",
     "file system operations are disabled"),
    ("schema.sql", "ATTACH '{out}/attached.duckdb' AS other;", "schema.sql holds a ATTACH statement"),
    ("schema.sql", "COPY (SELECT 42) TO '{out}/written.csv';", "schema.sql holds a COPY statement"),
    ("schema.sql", "INSTALL httpfs; LOAD httpfs;", "schema.sql holds a"),
    ("load.sql", "COPY (SELECT 42) TO '{out}/written.csv';", "a backup's load only copies its own files in"),
    ("load.sql", "COPY gpus FROM '{out}/secret.csv' (FORMAT 'parquet');", "which is not a file of the backup"),
    ("load.sql", "ATTACH '{out}/attached.duckdb';", "a backup's load only copies its own files in"),
])
def test_hostile_sql_with_a_matching_manifest_reads_and_writes_nothing_outside(place, tmp_path, name, added,
                                                                              fragment):
    bk, outside = place
    text = (bk / name).read_text()
    statement = added.format(out=outside)
    _rewritten(bk, name, statement + "\n" + text if name == "load.sql" else text + statement + "\n")
    before = _snapshot(outside)
    _refused(_restore(bk, tmp_path / "new.duckdb"), fragment)
    assert not (tmp_path / "new.duckdb").exists() and not (tmp_path / "new.duckdb.wal").exists()
    assert _snapshot(outside) == before  # nothing written there (no written.csv, no attached.duckdb)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bk", "outside"]


def test_a_load_naming_a_backup_file_by_another_folder_reads_only_the_backup(place, tmp_path):
    """The path's last part is a backup file, its folder elsewhere: access stays inside the backup."""
    bk, outside = place
    shutil.copy(bk / "gpus.parquet", outside / "gpus.parquet")
    text = (bk / "load.sql").read_text()
    _rewritten(bk, "load.sql", "\n".join(
        line.replace(line[line.index("'") + 1:line.rindex("'")], str(outside / "gpus.parquet"))
        if line.startswith("COPY gpus ") else line for line in text.splitlines()) + "\n")
    res = _restore(bk, tmp_path / "new.duckdb")
    # Either refused by the sandbox or read from the backup's own copy: never a read outside it.
    if res.exit_code != 0:
        _refused(res, "could not be restored")
        assert not (tmp_path / "new.duckdb").exists()
