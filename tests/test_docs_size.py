"""docs/benchmarks.md says the current figures, one short section per benchmark; history is git's."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmarks_page_stays_short():
    lines = (ROOT / "docs" / "benchmarks.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 300, f"docs/benchmarks.md has {len(lines)} lines: replace figures, keep one section each"


def test_the_readme_is_a_buyers_page():
    """The README says what gpuvalue answers and how to ask; commands, schema and sources live in docs/."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines: move reference material to docs/"
