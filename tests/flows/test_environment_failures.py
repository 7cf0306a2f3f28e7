"""One line for every environment failure: a full disk, a read-only folder, a missing or unreadable
file and a damaged database each get one line saying where and what to do, no traceback; nothing
stored is lost, no empty lock is left, and `gpuvalue run` starts no Prefect server first."""

from __future__ import annotations

import errno
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from conftest_exports import make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()
CSV = "title,price,sold_date\nNVIDIA GeForce RTX 3090 24GB,700,2020-12-01\n"


def _one_line(res, code: int = 2) -> str:
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output and not isinstance(res.exception, (OSError, duckdb.Error))
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    return lines[0]


@pytest.fixture
def warehouse(tmp_path) -> Path:
    db = tmp_path / "gpuvalue.duckdb"
    make_ranking_database(db).close()
    return db


def _damaged(db: Path, where: float | int, length: int = 8192) -> bytes:
    """The file with ``length`` bytes flipped at ``where`` (a share of its size, or a byte offset);
    the original bytes."""
    original = db.read_bytes()
    data = bytearray(original)
    start = where if isinstance(where, int) else int(len(data) * where)
    for i in range(start, min(start + length, len(data))):
        data[i] ^= 0x5A
    db.write_bytes(bytes(data))
    return original


@pytest.mark.parametrize("command", [["rank"], ["check"], ["sql", "SELECT count(*) FROM listings"], ["export", "--out", "x.csv"],
                                     ["import", "listings", "CSV", "--source", "x"], ["rematch"], ["backup", "--out", "BK"]])
def test_a_database_damaged_at_its_start_is_named_with_the_restore_command(warehouse, tmp_path, command):
    _damaged(warehouse, 4096, 2 * 4096 + 8192)  # both database headers and the first blocks; not the magic bytes
    damaged = warehouse.read_bytes()
    (tmp_path / "sold.csv").write_text(CSV)
    args = [{"CSV": str(tmp_path / "sold.csv"), "BK": str(tmp_path / "bk")}.get(a, a) for a in command]
    res = runner.invoke(app, [*args, "--db", str(warehouse)])
    line = _one_line(res, res.exit_code if res.exit_code in (1, 2) else 2)
    assert "is corrupted" in line and "gpuvalue restore --from BACKUP_DIR --db" in line, line
    assert warehouse.read_bytes() == damaged  # nothing written over it
    assert not Path(str(warehouse) + ".lock").exists()


@pytest.mark.e2e
def test_a_run_on_a_damaged_database_is_refused_in_one_line_before_its_flow(warehouse, prefect_harness):
    _damaged(warehouse, 4096, 2 * 4096 + 8192)
    damaged = warehouse.read_bytes()
    res = runner.invoke(app, ["run", "--replay", "--db", str(warehouse)])
    assert res.exit_code == 2, res.output
    assert "running the daily flow" not in res.output and "Traceback" not in res.output
    (line,) = [line for line in res.output.splitlines() if line.strip()]
    assert "is corrupted" in line and "gpuvalue restore --from BACKUP_DIR" in line
    assert warehouse.read_bytes() == damaged


def test_check_reads_every_table_back_and_finds_a_damaged_block(tmp_path):
    db = tmp_path / "gpuvalue.duckdb"
    make_ranking_database(db).close()
    con = duckdb.connect(str(db))
    # Most of the file: the damage at its middle falls in this table's data.
    con.execute("CREATE TABLE notes AS SELECT range AS i, md5(range::VARCHAR) AS s FROM range(1000000)")
    con.close()
    before = _damaged(db, 0.5)
    assert before != db.read_bytes()
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT count(*) FROM notes").fetchone()[0] == 1000000  # it opens and counts
    con.close()
    res = runner.invoke(app, ["check", "--db", str(db)])
    assert res.exit_code == 1, (res.stdout, res.stderr)
    assert "FAILED storage: table notes cannot be read back: Corrupt database file" in " ".join(res.stdout.split())
    errors = [line for line in res.stderr.splitlines() if line.strip()]
    assert len(errors) == 1 and "is corrupted" in errors[0] and "gpuvalue restore --from" in errors[0]
    assert "(damaged: notes)" in errors[0]


def test_check_reads_a_sound_warehouse_back(warehouse):
    res = runner.invoke(app, ["check", "--db", str(warehouse)])
    assert res.stdout.startswith("ok     storage: every table reads back\n"), res.output
    assert "corrupted" not in res.output  # (this small warehouse has no catalog: some SQL checks fail)


def test_a_lock_that_cannot_be_written_is_not_left_behind(warehouse, tmp_path, monkeypatch):
    """A full disk while the lock was written left an empty .lock, naming no holder."""
    from gpuvalue.warehouse import db as warehouse_db

    def full(fd, data, offset):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(warehouse_db.os, "pwrite", full)  # the lock's record, written once the lock is held
    (tmp_path / "sold.csv").write_text(CSV)
    for args in (["import", "listings", str(tmp_path / "sold.csv"), "--source", "x"], ["rematch"]):
        before = warehouse.read_bytes()
        line = _one_line(runner.invoke(app, [*args, "--db", str(warehouse)]))
        assert f"cannot write {warehouse}.lock: no space left on its disk" in line
        assert not Path(str(warehouse) + ".lock").exists()
        assert warehouse.read_bytes() == before


def test_run_into_a_read_only_place_starts_no_prefect(tmp_path, monkeypatch):
    from gpuvalue.flows import prefect_server
    from gpuvalue.warehouse import environment

    real = os.statvfs

    class ReadOnly:
        def __init__(self, stats):
            self.f_flag, self.f_bavail = stats.f_flag | os.ST_RDONLY, stats.f_bavail

    monkeypatch.setattr(environment.os, "statvfs", lambda path: ReadOnly(real(path)))
    monkeypatch.setattr(prefect_server, "launch_temporary_server",
                        lambda: pytest.fail("Prefect's server was started for a run that cannot write"))
    line = _one_line(runner.invoke(app, ["run", "--replay", "--db", str(tmp_path / "g.duckdb")]))
    assert f"cannot write {tmp_path / 'g.duckdb'}: it is on a read-only file system" in line
    assert list(tmp_path.iterdir()) == []


def test_a_missing_or_unreadable_file_is_one_line(warehouse, tmp_path, monkeypatch):
    assert "no such file" in _one_line(runner.invoke(app, ["import", "listings", str(tmp_path / "none.csv"),
                                                           "--source", "x", "--db", str(warehouse)]))
    assert "no such file" in _one_line(runner.invoke(app, ["parse", "lambda", str(tmp_path / "none.html")]))
    page = tmp_path / "page.html"
    page.write_text("<html></html>")
    real = Path.read_bytes

    def denied(self):
        if self == page:
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", denied)
    assert f"cannot read {page}: Permission denied" in _one_line(runner.invoke(app, ["parse", "lambda", str(page)]))
    assert "is not a gpuvalue backup" in _one_line(runner.invoke(
        app, ["restore", "--from", str(tmp_path / "nothing"), "--db", str(tmp_path / "new.duckdb")]))


def _can_mount() -> bool:
    if not shutil.which("unshare") or sys.platform != "linux":
        return False
    return subprocess.run(["unshare", "-rm", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt 2>/dev/null || "
                           "mount -t tmpfs -o size=64k tmpfs /tmp"], capture_output=True).returncode == 0


@pytest.mark.e2e  # a dozen gpuvalue processes: not the fast tier
@pytest.mark.skipif(not _can_mount(), reason="needs a mount namespace (unshare -rm) to mount a small tmpfs")
def test_a_full_disk_and_a_read_only_mount_get_one_line_each_and_lose_nothing(warehouse, tmp_path):
    mount = tmp_path / "mnt"
    mount.mkdir()
    (tmp_path / "sold.csv").write_text(CSV)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GPUVALUE_", "PREFECT_API_URL"))}
    done = subprocess.run(["unshare", "-rm", sys.executable, str(Path(__file__).with_name("full_and_readonly_mounts.py")),
                           str(mount), str(warehouse), str(tmp_path / "sold.csv")],
                          capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    results = json.loads(done.stdout)
    assert results["before"]
    for phase, words in (("full", "no space left on its disk"), ("readonly", "read-only file system")):
        for r in results[phase]:
            lines = [line for line in (r["stdout"] + r["stderr"]).splitlines() if line.strip()]
            assert r["code"] == 2 and len(lines) == 1 and lines[0].startswith("error:"), r
            assert words in lines[0], r
            assert "Prefect" not in lines[0] and "Traceback" not in r["stderr"], r
    assert results["full_left"] == ["filler", "gpuvalue.duckdb"]  # no .lock, no half backup
    assert results["readonly_left"] == ["gpuvalue.duckdb"]
    for after in ("after_full", "after_readonly"):  # the warehouse as it was, byte for byte, and it reads back
        assert results[f"{after}_same"]
        assert results[after]["stdout"].startswith("ok     storage: every table reads back"), results[after]
