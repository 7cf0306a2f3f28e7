"""A run for a past day (a backfill) leaves the exports on the latest ranked day."""

from __future__ import annotations

from datetime import date

from gpuvalue.flows.pipeline import export_day

DAYS = [date(2026, 11, 28), date(2026, 11, 30), date(2026, 12, 2)]


def test_the_latest_days_run_exports_that_day():
    assert export_day(DAYS, date(2026, 12, 2)) == (date(2026, 12, 2), None)


def test_a_past_days_run_keeps_the_latest_day_and_says_so():
    day, note = export_day(DAYS, date(2026, 11, 28))
    assert day == date(2026, 12, 2)
    assert note == ("exports keep the latest ranked day, 2026-12-02; this run ranked 2026-11-28 "
                    "(`gpuvalue export --date 2026-11-28` writes that day's)")


def test_a_run_that_ranked_nothing_is_left_to_fail_on_its_own_day():
    assert export_day(DAYS, date(2026, 12, 1)) == (date(2026, 12, 1), None)
    assert export_day([], date(2026, 12, 1)) == (date(2026, 12, 1), None)
