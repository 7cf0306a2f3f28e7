"""`gpuvalue run` refuses what it cannot do before it starts: a day still to come, a database path that is no file."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app

runner = CliRunner()


def _one_line_error(res, fragment: str) -> None:
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit)
    lines = [line for line in res.output.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:"), res.output
    assert fragment in lines[0], lines[0]


@pytest.mark.parametrize("days_ahead", [2, 365 * 80])
def test_a_date_after_today_is_refused(tmp_path, days_ahead):
    day = datetime.now(timezone.utc).date() + timedelta(days=days_ahead)
    db = tmp_path / "data" / "gpuvalue.duckdb"
    _one_line_error(runner.invoke(app, ["run", "--replay", "--date", day.isoformat(), "--db", str(db)]),
                    f"--date {day.isoformat()} is after today")
    assert list(tmp_path.iterdir()) == []  # nothing written: no database, no raw archive


def test_the_readme_far_future_example(tmp_path):
    _one_line_error(runner.invoke(app, ["run", "--date", "2099-01-01", "--db", str(tmp_path / "g.duckdb")]),
                    "--date 2099-01-01 is after today")
