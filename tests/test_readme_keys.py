"""The README's quick start says what keys add to a live run and what a run without them gets, as
the web is in late 2026 (eBay's challenge and sign-in pages, Reddit's robots.txt)."""

from __future__ import annotations

from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def _quick_start() -> str:
    text = README.read_text(encoding="utf-8")
    return " ".join(text[text.index("## Quick start"):text.index("## Ask it")].split())


def test_the_quick_start_says_ebay_browse_keys_are_how_a_live_run_gets_todays_listings():
    said = _quick_start()
    assert "eBay Browse API keys (`EBAY_CLIENT_ID`, `EBAY_CLIENT_SECRET`: free" in said
    assert "about five minutes" in said and "are how a live run" in said and "today's used listings" in said


def test_the_quick_start_says_what_a_run_without_keys_gets():
    said = _quick_start()
    assert "Without them" in said and "gets no new listing price at all" in said
    assert "Pardon our interruption" in said and "robots.txt" in said
    for gets in ("GPU Poet's monthly market reports", "the rentals", "the specs"):
        assert gets in said
    assert "`gpuvalue sources --check`" in said
