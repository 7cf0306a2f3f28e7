"""A .env file holds a few settings: a 50 MB value once held `run` for minutes before anything was
said. A file past the bound is refused in one line before it is read, and an invalid long value is
named by its start and its length, never printed whole."""

from __future__ import annotations

from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.settings_core import MAX_ENV_FILE_BYTES

runner = CliRunner()


def test_a_huge_env_file_is_refused_in_one_line_before_anything_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text('GPUVALUE_REFERENCE_GPU="' + "x" * (MAX_ENV_FILE_BYTES + 10) + '"\n')
    for command in (["run", "--replay", "--db", str(tmp_path / "g.duckdb")], ["rank", "--db", str(tmp_path / "g.duckdb")]):
        res = runner.invoke(app, command)
        lines = [line for line in res.output.splitlines() if line.strip()]
        assert res.exit_code == 2 and len(lines) == 1, res.output
        assert "invalid settings: .env is 1.0 MB; a settings file holds a few lines (at most 1 MB): not read" in lines[0]
    assert not (tmp_path / "g.duckdb").exists()


def test_a_long_invalid_value_is_named_by_its_start_and_length(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("GPUVALUE_PRECISION=" + "p" * 200_000 + "\n")
    res = runner.invoke(app, ["rank", "--db", str(tmp_path / "g.duckdb")])
    assert res.exit_code == 2 and len(res.output) < 400, res.output[:400]
    assert "GPUVALUE_PRECISION='ppp" in res.output and "(200,000 characters)" in res.output
