"""Paths that are not files: the database, backup and export paths refuse FIFOs, devices,
directories, remote (md:) and in-memory names and over-long names in one line, before anything is
opened (a FIFO blocked the first open forever; `export --out /dev/full` replaced the device node)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse import export_files
from gpuvalue.warehouse.db import WarehouseError, open_database
from gpuvalue.warehouse.paths import file_problem, folder_problem, name_problem
from tests.conftest_exports import make_ranking_database

runner = CliRunner()


def _one_line(res, fragment: str) -> str:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.exception
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    assert fragment in " ".join(res.output.split()), res.output
    return lines[0]


@pytest.fixture
def fifo(tmp_path) -> Path:
    path = tmp_path / "pipe.duckdb"
    os.mkfifo(path)
    return path


@pytest.fixture
def ranked(tmp_path) -> Path:
    path = tmp_path / "ranked.duckdb"
    make_ranking_database(path).close()
    return path


@pytest.mark.parametrize("command", [["rank"], ["check"], ["sql", "SELECT 1"], ["export", "--format", "csv"],
                                     ["backup", "--out", "bk"], ["restore", "--from", "bk"], ["runs"]])
def test_a_fifo_as_the_database_is_refused_at_once(fifo, command, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _one_line(runner.invoke(app, [*command, "--db", str(fifo)]), "is a FIFO (named pipe), not a regular file")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pipe.duckdb"]  # no lock, no folder beside it


@pytest.mark.parametrize("name, fragment", [
    ("md:my_db", "names a remote or special database (md:)"),
    ("motherduck:x", "names a remote or special database (motherduck:)"),
    ("s3://bucket/g.duckdb", "names a remote or special database (s3:)"),
    (":memory:", "names an in-memory database"),
    ("/dev/null", "is a character device"),
])
def test_special_database_names_are_refused(name, fragment, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path))  # where DuckDB would install an extension it fetched
    for command in (["rank"], ["check"], ["run", "--replay"]):
        _one_line(runner.invoke(app, [*command, "--db", name]), fragment)
    monkeypatch.setenv("GPUVALUE_DB", name)
    _one_line(runner.invoke(app, ["rank"]), fragment)
    assert list(tmp_path.iterdir()) == []  # no ~/.duckdb/extensions, no data/


def test_an_over_long_name_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    long = tmp_path / ("g" * 300 + ".duckdb")
    _one_line(runner.invoke(app, ["rank", "--db", str(long)]), "has a name of 307 bytes")
    # Room is kept for the lock and journal beside it: a name just too long for those is refused too.
    _one_line(runner.invoke(app, ["check", "--db", str(tmp_path / ("g" * 250))]), "has a name of 250 bytes")
    assert list(tmp_path.iterdir()) == []


def test_open_database_refuses_them_too(fifo):
    for path in (fifo, "md:x", "/dev/null"):
        with pytest.raises(WarehouseError, match="not a regular file|remote or special"):
            open_database(path, wait_s=0)


def test_memory_limit_beyond_any_machine_is_one_line(ranked, monkeypatch):
    monkeypatch.setenv("GPUVALUE_SQL_MEMORY_LIMIT", "99999999TB")
    _one_line(runner.invoke(app, ["sql", "SELECT 1", "--db", str(ranked)]), "GPUVALUE_SQL_MEMORY_LIMIT='99999999TB'")
    monkeypatch.setenv("GPUVALUE_SQL_MEMORY_LIMIT", "1KB")  # DuckDB then failed every query with out-of-memory
    _one_line(runner.invoke(app, ["sql", "SELECT 1", "--db", str(ranked)]), "below 16MB")
    monkeypatch.setenv("GPUVALUE_SQL_MEMORY_LIMIT", "64MB")
    monkeypatch.setenv("GPUVALUE_SQL_TEMP_LIMIT", "999999999TB")
    _one_line(runner.invoke(app, ["sql", "SELECT 1", "--db", str(ranked)]), "GPUVALUE_SQL_TEMP_LIMIT")


def test_export_refuses_a_device_and_a_fifo(ranked, fifo, monkeypatch, tmp_path):
    replaced: list[str] = []
    real_replace = os.replace

    def guarded(src, dst, *args, **kwargs):  # a regression must never replace a real device node
        if str(dst).startswith("/dev/"):
            replaced.append(str(dst))
            raise AssertionError(f"export renamed a file over {dst}")
        return real_replace(src, dst, *args, **kwargs)

    monkeypatch.setattr(export_files.os, "replace", guarded)
    _one_line(runner.invoke(app, ["export", "--format", "csv", "--out", "/dev/full", "--db", str(ranked)]),
              "is a character device, not a regular file")
    _one_line(runner.invoke(app, ["export", "--format", "csv", "--out", str(fifo), "--db", str(ranked)]),
              "is a FIFO (named pipe)")
    _one_line(runner.invoke(app, ["export", "--all", "--out", str(fifo), "--db", str(ranked)]),
              "is not a directory")
    assert replaced == []
    assert os.path.exists("/dev/full") and not Path("/dev/full").is_file()
    # The rest still works: a plain file beside them.
    res = runner.invoke(app, ["export", "--format", "csv", "--out", str(tmp_path / "r.csv"), "--db", str(ranked)])
    assert res.exit_code == 0, res.output


def test_backup_and_restore_refuse_paths_that_are_not_folders(ranked, fifo, tmp_path):
    _one_line(runner.invoke(app, ["backup", "--out", str(fifo), "--db", str(ranked)]), "is a FIFO (named pipe)")
    _one_line(runner.invoke(app, ["backup", "--out", "/dev/full", "--db", str(ranked)]), "is a character device")
    _one_line(runner.invoke(app, ["restore", "--from", str(fifo), "--db", str(tmp_path / "new.duckdb")]),
              "is a FIFO (named pipe)")
    _one_line(runner.invoke(app, ["restore", "--from", "md:x", "--db", str(tmp_path / "new.duckdb")]),
              "remote or special")
    assert not (tmp_path / "new.duckdb").exists()


def test_the_rules_on_their_own(tmp_path, fifo):
    assert name_problem("data/gpuvalue.duckdb") is None and name_problem("C:\\data\\g.duckdb") is None
    assert "remote" in name_problem("md:")
    assert file_problem(tmp_path / "missing.duckdb") is None
    assert file_problem(tmp_path / "a-file-under" / "x") is None  # missing folders are made where written
    assert "directory" in file_problem(tmp_path)
    assert folder_problem(tmp_path) is None and "FIFO" in folder_problem(fifo)
