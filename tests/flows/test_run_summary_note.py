"""The run summary's note per source: what a new user reads after `gpuvalue run`, in a table column.
Cut at a word, with the count of what it leaves out and where the whole is (the runs table)."""

from __future__ import annotations

from gpuvalue.flows.pipeline import SourceOutcome

URL = "https://www.techpowerup.com/gpu-specs/?released={}&sort=name"


def test_a_short_warning_or_error_is_shown_whole():
    assert SourceOutcome("s", "ok").note(160) == ""
    assert SourceOutcome("s", "ok", warnings=["s: 3 offers dropped"]).note(160) == "s: 3 offers dropped"
    assert SourceOutcome("s", "failed", error="s: HTTP 503", warnings=["s: w"]).note(160) == "s: HTTP 503"


def test_many_warnings_show_the_first_and_how_many_more():
    years = [2014, 2015, 2017, 2018, 2019, 2021, 2024, 2025, 2026]
    outcome = SourceOutcome("techpowerup", "ok", warnings=[
        f"techpowerup: listing page not recorded, skipped: {URL.format(y)}" for y in years])
    note = outcome.note(160)
    assert note == (f"techpowerup: listing page not recorded, skipped: {URL.format(2014)} "
                    "(+8 more; all in table runs)")
    assert len(note) <= 160


def test_a_long_warning_is_cut_at_a_word_and_says_where_the_whole_is():
    why = ("pytorch-gpu-benchmark: no fp16 figure for Radeon RX 7800 XT: no other card ran the same workloads "
           "at its batch (4) in this harness: no ratio, and no ratio across harnesses either")
    note = SourceOutcome("pytorch-gpu-benchmark", "ok", warnings=[why]).note(120)
    assert note == ("pytorch-gpu-benchmark: no fp16 figure for Radeon RX 7800 XT: no other card ran the same "
                    "workloads\u2026 (whole in table runs)")
    assert len(note) <= 120 and why.startswith(note.split("\u2026")[0])


def test_every_note_fits_its_column():
    texts = ["x" * 400, "word " * 100, "a; b; " * 60, "techpowerup: " + "y" * 300, "", " " * 300]
    for text in texts:
        for limit in (40, 120, 160, 200):
            for outcome in (SourceOutcome("s", "failed", error=text or "e"),
                            SourceOutcome("s", "ok", warnings=[text or "w"]),
                            SourceOutcome("s", "ok", warnings=[text or "w", "second"])):
                assert len(outcome.note(limit)) <= limit, (text[:20], limit, outcome.note(limit))


def test_what_a_failed_source_keeps_is_said_first_and_never_cut():
    kept = "keeps its data of 2026-11-20 (11 days old)"
    outcome = SourceOutcome("ebay-html", "failed", error="AccessRefused: https://www.ebay.com/: " + "wall " * 60,
                            kept=kept)
    note = outcome.note(160)
    assert note.startswith(kept + "; AccessRefused: ") and note.endswith("(whole in table runs)")
    assert len(note) <= 160
