"""A database path that cannot be a DuckDB file fails at once in one line, and nothing is written beside it."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.warehouse.db import WarehouseError, open_database

runner = CliRunner()


def _one_line_error(res, fragment: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    assert fragment in lines[0], lines[0]


def test_run_with_gpuvalue_db_a_directory(tmp_path, monkeypatch):
    folder = tmp_path / "data"
    folder.mkdir()
    monkeypatch.setenv("GPUVALUE_DB", str(folder))
    _one_line_error(runner.invoke(app, ["run", "--replay"]), "is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # no raw/, http-cache/ or lock beside it
    assert list(folder.iterdir()) == []


def test_run_with_a_database_path_under_a_file(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    _one_line_error(runner.invoke(app, ["run", "--replay", "--db", str(blocker / "sub" / "g.duckdb")]),
                    "which is not a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


@pytest.mark.parametrize("read_only", [False, True])
def test_open_database_refuses_a_directory(tmp_path, read_only):
    with pytest.raises(WarehouseError, match="is a directory"):
        open_database(tmp_path, read_only=read_only, wait_s=0)
    assert list(tmp_path.iterdir()) == []


def test_open_database_under_a_file_is_a_warehouse_error(tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("x")
    with pytest.raises(WarehouseError, match="cannot create the folder"):
        open_database(blocker / "sub" / "g.duckdb", wait_s=0)


def test_readers_say_so_too(tmp_path):
    _one_line_error(runner.invoke(app, ["rank", "--db", str(tmp_path)]), "is a directory")
