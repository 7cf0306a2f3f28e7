"""`gpuvalue recommend` refuses budgets, memory, hours and prices that make no sense, in one line, before reading the database."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--budget", "nan"], "--budget must be a positive number"),
        (["--budget", "inf"], "--budget must be a positive number"),
        (["--budget", "-100"], "--budget must be a positive number"),
        (["--budget", "0"], "--budget must be a positive number"),
        (["--budget", "800", "--min-memory", "-3"], "--min-memory must be a number of GB, 0 or more, not -3"),
        (["--budget", "800", "--min-memory", "nan"], "--min-memory must be a number of GB, 0 or more"),
        (["--budget", "800", "--kwh-price", "0.3", "--hours-per-day", "30"], "--hours-per-day must be between 0 and 24, not 30"),
        (["--budget", "800", "--kwh-price", "0.3", "--hours-per-day", "-1"], "--hours-per-day must be between 0 and 24"),
        (["--budget", "800", "--kwh-price", "0.3", "--hours-per-day", "nan"], "--hours-per-day must be between 0 and 24"),
        (["--budget", "800", "--kwh-price", "-1", "--hours-per-day", "8"], "--kwh-price must be 0 or more USD per kWh, not -1"),
        (["--budget", "800", "--kwh-price", "inf", "--hours-per-day", "8"], "--kwh-price must be 0 or more"),
        (["--budget", "800", "--max-gpus", "0"], "--max-gpus must be between 1 and 16, not 0"),
        (["--budget", "800", "--max-gpus", "40"], "--max-gpus must be between 1 and 16, not 40"),
        (["--budget", "800", "--gpus", "2", "--max-gpus", "4"], "--gpus fixes the number of cards and --max-gpus limits it"),
        (["--budget", "800", "--platform-cost", "-5"], "--platform-cost must be 0 or more USD, not -5"),
        (["--budget", "800", "--extra-gpu-cost", "nan"], "--extra-gpu-cost must be 0 or more USD"),
        (["--budget", "800", "--hours-per-week", "10", "--max-gpus", "2"], "--hours-per-week answers rent or buy for one card"),
        (["--budget", "800", "--hours-per-week", "10", "--extra-gpu-cost", "100"], "leave out --extra-gpu-cost"),
        (["--budget", "600", "--model-params", "8X", "--method", "qlora"], "--model-params must be a parameter count such as 8B"),
        (["--budget", "600", "--model-params", "-8B", "--method", "qlora"], "--model-params must be a parameter count"),
        (["--budget", "600", "--model-params", "0B", "--method", "lora"], "--model-params must be above 0"),
        (["--budget", "600", "--model-params", "8", "--method", "lora"], "--model-params must be a parameter count"),
        (["--budget", "600", "--model-params", "8B"], "--model-params needs --method: one of full, lora, qlora"),
        (["--budget", "600", "--method", "lora"], "--method needs --model-params"),
        (["--budget", "600", "--model-params", "8B", "--method", "half"], "--method must be one of full, lora, qlora"),
    ],
)
def test_bad_numbers_are_one_line_errors(tmp_path, args, message):
    res = runner.invoke(app, ["recommend", *args, "--db", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2, res.output
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0], res.output
    assert "Traceback" not in res.output


@pytest.mark.parametrize("args", [
    ["--budget", "800"],
    ["--budget", "800", "--min-memory", "0"],
    ["--budget", "800", "--kwh-price", "0", "--hours-per-day", "0"],
    ["--budget", "800", "--kwh-price", "0.3", "--hours-per-day", "24"],
    ["--budget", "800", "--use-case", "LLM"],  # a use case in capitals is the same one
    ["--budget", "800", "--max-gpus", "1", "--platform-cost", "0", "--extra-gpu-cost", "150", "--json"],
    ["--budget", "800", "--gpus", "3"],
])
def test_edge_values_are_accepted(tmp_path, args):
    # Past validation, the next complaint is the missing database.
    res = runner.invoke(app, ["recommend", *args, "--db", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2 and "no database at" in res.output, res.output
