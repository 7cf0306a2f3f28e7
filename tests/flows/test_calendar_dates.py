"""--date and --since take ISO calendar dates only: Python's fromisoformat also reads week dates and
the basic form, which a person typing a day does not mean."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.mark.parametrize("args", [
    ["rank", "--date", "2026-W48-1"],
    ["rank", "--date", "20261202"],
    ["export", "--date", "2026-W48"],
    ["reparse", "--since", "2026W481"],
    ["rank", "--date", "\u0662\u0660\u0662\u0666-12-02"],  # Arabic-Indic digits
])
def test_week_dates_and_the_basic_form_are_refused_in_one_line(args, tmp_path):
    res = runner.invoke(app, [*args, "--db", str(tmp_path / "none.duckdb")])
    assert res.exit_code == 2, res.output
    lines = res.output.strip().splitlines()
    assert len(" ".join(lines)) < 200 and "Traceback" not in res.output
    assert f"{args[1]} must be a date like 2026-11-30 (a calendar date, YYYY-MM-DD)" in " ".join(res.output.split())


def test_a_calendar_date_is_read(tmp_path):
    res = runner.invoke(app, ["rank", "--date", "2026-12-02", "--db", str(tmp_path / "none.duckdb")])
    assert "must be a date" not in res.output  # refused for the missing database instead
    assert "no database at" in res.output
