"""`backup` is atomic: written beside its target and renamed into place, so a killed backup leaves
nothing at the target that `restore` or the next `backup` could take for one."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest
from conftest_exports import make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def big_db(tmp_path_factory) -> Path:
    """A warehouse with a table large enough that its export takes seconds."""
    path = tmp_path_factory.mktemp("backup-atomic") / "gpuvalue.duckdb"
    make_ranking_database(path).close()
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE filler AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(1500000)")
    con.close()
    return path


def test_a_killed_backup_leaves_no_folder_at_its_target(big_db, tmp_path):
    target = tmp_path / "bk"
    proc = subprocess.Popen([sys.executable, "-m", "gpuvalue.flows.cli", "backup", "--db", str(big_db),
                             "--out", str(target)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and proc.poll() is None:
            partial = [p for p in tmp_path.iterdir() if p.name.startswith(".bk.partial-")]
            if partial and any(partial[0].iterdir()):  # the export is writing its files
                break
            time.sleep(0.02)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        proc.kill()
    assert not target.exists()  # it held 22 parquet files and no schema.sql
    # The next backup to the same target is not refused as "not empty", and clears the dead one's files.
    res = runner.invoke(app, ["backup", "--db", str(big_db), "--out", str(target)])
    assert res.exit_code == 0, res.output
    assert (target / "schema.sql").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bk"]


def test_a_backup_into_an_empty_folder_still_works(tmp_path):
    db = tmp_path / "g.duckdb"
    make_ranking_database(db).close()
    (tmp_path / "bk").mkdir()
    res = runner.invoke(app, ["backup", "--db", str(db), "--out", str(tmp_path / "bk")])
    assert res.exit_code == 0, res.output
    assert (tmp_path / "bk" / "schema.sql").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bk", "g.duckdb"]


def test_a_failed_backup_leaves_nothing_and_says_why_in_one_line(tmp_path, monkeypatch):
    db = tmp_path / "g.duckdb"
    make_ranking_database(db).close()
    from gpuvalue.warehouse import maintenance

    real = maintenance.open_database

    class _FullDisk:
        def __init__(self, con):
            self.con = con

        def execute(self, sql, *args):
            if sql.startswith("EXPORT DATABASE"):
                raise duckdb.IOException('IO Error: Could not write file "x/gpus.parquet": No space left on device')
            return self.con.execute(sql, *args)

        def close(self):
            self.con.close()

    monkeypatch.setattr(maintenance, "open_database", lambda *a, **k: _FullDisk(real(*a, **k)))
    res = runner.invoke(app, ["backup", "--db", str(db), "--out", str(tmp_path / "bk")])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and len(res.output.strip().splitlines()) == 1
    assert f"cannot write {tmp_path / 'bk'}: no space left on its disk" in " ".join(res.output.split())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.duckdb"]
