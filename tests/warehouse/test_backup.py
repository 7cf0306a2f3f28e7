"""Backup and restore: a restored database holds exactly what was backed up, and neither command
overwrites anything it should not."""

from __future__ import annotations

import shutil
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

from conftest_exports import LATEST_DAY, make_ranking_database, ranking_for
from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import integrity_check, open_database

runner = CliRunner()
TABLES = ("gpus", "gpu_specs", "spec_conflicts", "listings", "listing_snapshots", "fx_rates", "perf",
          "perf_scaling", "perf_inference", "prices_daily", "ranking_daily", "runs", "schema_version")


def _dump(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {t: con.execute(f"SELECT * FROM {t} ORDER BY ALL").fetchall() for t in TABLES}  # constant names
    finally:
        con.close()


@pytest.fixture(scope="module")
def backed_up(replay_db, tmp_path_factory):
    folder = tmp_path_factory.mktemp("backup")
    db = folder / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    res = runner.invoke(app, ["backup", "--db", str(db), "--out", str(folder / "bk")])
    assert res.exit_code == 0, res.output
    return db, folder / "bk"


@pytest.mark.e2e
def test_restore_gives_back_every_row(backed_up, tmp_path):
    db, bk = backed_up
    target = tmp_path / "restored" / "gpuvalue.duckdb"
    res = runner.invoke(app, ["restore", "--from", str(bk), "--db", str(target)])
    assert res.exit_code == 0, res.output
    assert _dump(target) == _dump(db)
    con = open_database(target, read_only=True)
    assert integrity_check(con) == []
    # Views come back too.
    assert con.execute("SELECT count(*) FROM ranking_latest").fetchone()[0] > 0
    con.close()


@pytest.mark.e2e
def test_restore_refuses_to_overwrite_a_database(backed_up, tmp_path):
    db, bk = backed_up
    target = tmp_path / "gpuvalue.duckdb"
    target.write_bytes(b"precious")
    res = runner.invoke(app, ["restore", "--from", str(bk), "--db", str(target)])
    assert res.exit_code == 2 and "exists; restore into a new database file" in " ".join(res.output.split())
    assert target.read_bytes() == b"precious"


def test_a_small_warehouse_comes_back_whole(tmp_path):
    """The round trip on a small warehouse built from the migrations (seconds, in the fast tier);
    test_restore_gives_back_every_row does it on the replay run's."""
    db = tmp_path / "small.duckdb"
    make_ranking_database(db).close()
    res = runner.invoke(app, ["backup", "--db", str(db), "--out", str(tmp_path / "bk")])
    assert res.exit_code == 0, res.output
    target = tmp_path / "restored" / "gpuvalue.duckdb"
    res = runner.invoke(app, ["restore", "--from", str(tmp_path / "bk"), "--db", str(target)])
    assert res.exit_code == 0, res.output
    restored = _dump(target)
    assert restored == _dump(db) and restored["ranking_daily"] and restored["prices_daily"]
    con = open_database(target, read_only=True)
    assert con.execute("SELECT count(*) FROM ranking_latest").fetchone()[0] == len(ranking_for(LATEST_DAY))
    con.close()


def test_restore_refuses_a_folder_that_is_not_a_backup(tmp_path):
    (tmp_path / "junk").mkdir()
    res = runner.invoke(app, ["restore", "--from", str(tmp_path / "junk"), "--db", str(tmp_path / "new.duckdb")])
    assert res.exit_code == 2 and "is not a gpuvalue backup" in " ".join(res.output.split())
    assert not (tmp_path / "new.duckdb").exists()


@pytest.mark.e2e
def test_backup_refuses_a_folder_with_files(backed_up, tmp_path):
    db, _ = backed_up
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine")
    res = runner.invoke(app, ["backup", "--db", str(db), "--out", str(tmp_path / "used")])
    assert res.exit_code == 2 and "is not empty" in res.output
    assert [p.name for p in (tmp_path / "used").iterdir()] == ["keep.txt"]


def test_backup_of_a_missing_database_says_so(tmp_path):
    res = runner.invoke(app, ["backup", "--db", str(tmp_path / "none.duckdb"), "--out", str(tmp_path / "bk")])
    assert res.exit_code == 2
    assert "no database at" in " ".join(res.output.split()) and "Traceback" not in res.output
    assert not (tmp_path / "bk").exists()  # no empty backup folder left behind
