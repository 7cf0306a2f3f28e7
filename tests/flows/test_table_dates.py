"""A date in a table is never cut over two lines ("2025-06-2" over "1" reads as another day)."""

from __future__ import annotations

import io
from datetime import date

import pytest
from rich.console import Console

from gpuvalue.flows.cli import cli_app

TITLE = "a seller's long title that has to fold somewhere in a narrow terminal " * 2


def _printed(monkeypatch, cols, rows, width) -> list[str]:
    buffer = io.StringIO()
    monkeypatch.setattr(cli_app, "out", Console(file=buffer, width=width, emoji=False, markup=False))
    cli_app.print_table(cols, rows)
    return buffer.getvalue().splitlines()


@pytest.mark.parametrize("width", [40, 60, 160])
@pytest.mark.parametrize("day", [date(2025, 6, 21), "2025-06-21"])
def test_a_day_stays_on_one_line(monkeypatch, width, day):
    cols = ["model", "title", "providers", "price as of", "age"]
    rows = [("GeForce RTX 3090", TITLE, "vast.ai, runpod, lambda", day, "12 days"),
            ("H100 PCIe 80 GB", TITLE, "vast.ai", None, "-")]
    lines = _printed(monkeypatch, cols, rows, width)
    assert any("2025-06-21" in line for line in lines), "\n".join(lines)
    assert not any("2025-06-2" in line and "2025-06-21" not in line for line in lines), "\n".join(lines)


def test_a_month_stays_on_one_line(monkeypatch):
    lines = _printed(monkeypatch, ["title", "month"], [(TITLE, "2025-06"), (TITLE, "2024-11")], 30)
    text = "\n".join(lines)
    assert "2025-06" in text and "2024-11" in text, text


def test_text_columns_still_fold(monkeypatch):
    lines = _printed(monkeypatch, ["title", "day"], [(TITLE, "2025-06-21")], 40)
    assert all(len(line) <= 40 for line in lines)
    assert len(lines) > 5  # the title folded over several lines, the day did not


@pytest.mark.parametrize(
    ("values", "dates"),
    [([date(2025, 1, 2), None, "2025-01"], True), (["2025-01-02", "soon"], False), ([None], False),
     (["2025-1-2"], False), ([20250102], False)],
)
def test_what_counts_as_a_date_column(values, dates):
    assert cli_app.is_date_column(values) is dates
