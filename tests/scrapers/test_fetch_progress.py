"""A long fetch says where it is without drowning the run's log: its first and last step, and at
most one line every PROGRESS_EVERY_S seconds between. A replay reads hundreds of recorded pages a
second; it used to log every one of them (220 lines of one benchmark source, 174 of eBay's
searches, out of a replay's 525)."""

from __future__ import annotations

import re

import pytest

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers import source as source_module
from gpuvalue.scrapers.source import PROGRESS_EVERY_S, FetchContext


def _context(said: list[str]) -> FetchContext:
    return FetchContext(client=None, settings=None, replay=False, progress=said.append)


def _said_by_steps(monkeypatch, steps: list[tuple[str, int, int | None]], seconds_apart: float) -> list[str]:
    """What a fetch taking these steps, ``seconds_apart`` from each other, says."""
    now = [100.0]
    monkeypatch.setattr(source_module, "monotonic", lambda: now[0])
    said: list[str] = []
    ctx = _context(said)
    for message, number, total in steps:
        ctx.step(message, number, total)
        now[0] += seconds_apart
    return said


def test_first_last_and_one_step_per_interval_are_said(monkeypatch):
    pages = [(f"page {n}/10", n, 10) for n in range(1, 11)]
    said = _said_by_steps(monkeypatch, pages, PROGRESS_EVERY_S / 4)  # four pages to an interval
    assert said == ["page 1/10", "page 5/10", "page 9/10", "page 10/10"]


def test_a_fetch_without_a_known_total_says_its_first_step_then_one_per_interval(monkeypatch):
    pages = [(f"{n} fetched", n, None) for n in range(1, 8)]
    said = _said_by_steps(monkeypatch, pages, PROGRESS_EVERY_S / 2)
    assert said == ["1 fetched", "3 fetched", "5 fetched", "7 fetched"]


def test_warnings_are_never_held_back(monkeypatch):
    monkeypatch.setattr(source_module, "monotonic", lambda: 5.0)
    said: list[str] = []
    ctx = _context(said)
    ctx.step("page 1/3", 1, 3)
    ctx.step("page 2/3", 2, 3)
    ctx.report("a warning")
    ctx.report("another")
    assert said == ["page 1/3", "a warning", "another"]


@pytest.mark.parametrize("name", ["pytorch-gpu-benchmark", "ebay-browse"])
def test_a_replayed_fetch_of_many_steps_says_a_few_lines(name):
    said: list[str] = []
    P.fetch_source(name, Settings(), replay=True, progress=said.append)
    steps = [re.search(r" (\d+)/(\d+)", line) for line in said]
    steps = [(int(m[1]), int(m[2])) for m in steps if m]
    assert steps[0] == (1, steps[0][1]) and steps[0][1] > 20  # 220 pages; 29 searches (174 in a run)
    assert steps[-1][0] == steps[-1][1]  # the last said too
    assert len(steps) <= 6, said
