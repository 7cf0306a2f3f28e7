"""Data-quality alarms: a source's volume or match rate far below its trailing median raises an
alarm, and `fail_on_quality_alarm` turns alarms into a failed run (non-zero exit)."""

from __future__ import annotations

import shutil
from datetime import date, datetime, timedelta

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.cli import app
from gpuvalue.flows.run_report import quality_alarms

runner = CliRunner()
TODAY = date(2026, 12, 10)


def _history(con, source: str, days: list[tuple[int, int | None]], *, start: date = date(2026, 11, 1)) -> None:
    """Past runs of ``source``: (rows, matched) per day; matched None for a source that is not matched."""
    for i, (rows, matched) in enumerate(days):
        run_id, when = f"past{i:02d}", datetime.combine(start + timedelta(days=i), datetime.min.time())
        con.execute("INSERT INTO runs VALUES (?, ?, 'listings', ?, false, ?, ?, 'ok', ?, NULL, ?)",
                    [run_id, source, when.date(), when, when, rows, matched])


def _today(con, source: str, rows: int, matched: int | None, status: str = "ok") -> P.RunSummary:
    when = datetime.combine(TODAY, datetime.min.time())
    con.execute("INSERT INTO runs VALUES ('today', ?, 'listings', ?, false, ?, ?, ?, ?, NULL, ?)",
                [source, TODAY, when, when, status, rows, matched])
    return P.RunSummary(run_id="today", as_of=TODAY, replay=False, db=":memory:")


@pytest.fixture
def con(tmp_path):
    from gpuvalue.warehouse.db import open_database

    c = open_database(tmp_path / "warehouse.duckdb")  # a copy of the migrated one (tests/conftest.py)
    yield c
    c.close()


def test_a_normal_day_raises_nothing(con):
    _history(con, "ebay-browse", [(1000, 850), (1100, 900), (950, 800), (1050, 880)])
    assert quality_alarms(con, _today(con, "ebay-browse", 990, 830)) == []


def test_volume_far_below_the_trailing_median_alarms(con):
    _history(con, "ebay-browse", [(1000, 850), (1100, 900), (950, 800), (1050, 880)])
    alarms = quality_alarms(con, _today(con, "ebay-browse", 400, 340))
    assert alarms == ["ebay-browse: 400 rows today against a trailing median of 1025 (markup change or block?)"]


def test_a_match_rate_collapse_alarms_even_at_normal_volume(con):
    _history(con, "ebay-browse", [(1000, 850), (1100, 935), (950, 808), (1050, 893)])
    alarms = quality_alarms(con, _today(con, "ebay-browse", 1000, 300))
    assert alarms == ["ebay-browse: 30% of listings matched a GPU model today against a trailing median of 85% "
                      "(titles or page changed?)"]


def test_only_the_trailing_window_counts_and_short_histories_stay_quiet(con):
    # Long ago the source was ten times bigger; the last fourteen runs are the usual level.
    _history(con, "hardwareswap", [(5000, 4000)] * 10 + [(100, 80)] * 14)
    assert quality_alarms(con, _today(con, "hardwareswap", 90, 70)) == []
    con.execute("DELETE FROM runs")
    _history(con, "hardwareswap", [(1000, 800), (1000, 800)])  # two runs are not a trend yet
    assert quality_alarms(con, _today(con, "hardwareswap", 10, 0)) == []


def test_match_rows_do_not_count_as_volume_history(con):
    # Matched counts are lower than row counts; mixing them in would drag the volume median down.
    _history(con, "ebay-browse", [(1000, 100), (1000, 100), (1000, 100), (1000, 100)])
    assert quality_alarms(con, _today(con, "ebay-browse", 600, 60)) == []
    assert quality_alarms(con, P.RunSummary(run_id="none", as_of=TODAY, replay=False, db=":memory:")) == []


def test_a_failed_source_is_not_a_quality_alarm(con):
    _history(con, "ebay-browse", [(1000, 850)] * 4)
    assert quality_alarms(con, _today(con, "ebay-browse", 0, None, status="failed")) == []


@pytest.fixture(scope="module")
def alarmed_db(replay_db, tmp_path_factory):
    """Yesterday's replay database with a synthetic history in which ebay-browse was far bigger."""
    db = tmp_path_factory.mktemp("alarms") / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    con = duckdb.connect(str(db))
    _history(con, "ebay-browse", [(20000, 19000)] * 5)
    con.close()
    return db


@pytest.mark.parametrize("fail_on_alarm, exit_code", [(False, 0), (True, 1)])
@pytest.mark.e2e
def test_fail_on_quality_alarm_turns_an_alarm_into_a_non_zero_exit(alarmed_db, tmp_path, monkeypatch,
                                                                    fail_on_alarm, exit_code):
    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(alarmed_db, db)
    monkeypatch.setenv("GPUVALUE_SOURCES", '["ebay-browse"]')
    if fail_on_alarm:
        monkeypatch.setenv("GPUVALUE_FAIL_ON_QUALITY_ALARM", "true")
    res = runner.invoke(app, ["run", "--replay", "--db", str(db), "--date", "2026-12-01"])
    assert res.exit_code == exit_code, res.output
    output = " ".join(res.output.split())
    assert "alarm: ebay-browse: 1923 rows today against a trailing median of 20000" in output
    assert ("failed sources: quality alarms" in output) is fail_on_alarm
    con = duckdb.connect(str(db), read_only=True)
    # The alarm does not undo the day: the rows are loaded and ranked either way.
    assert con.execute("SELECT status FROM runs WHERE source = 'ebay-browse' AND as_of = '2026-12-01' AND stage = 'listings'").fetchall() == [("ok",)]
    assert con.execute("SELECT count(*) FROM ranking_daily WHERE as_of = '2026-12-01'").fetchone()[0] > 0
    con.close()
