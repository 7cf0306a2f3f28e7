"""Control characters never reach a terminal or a file unescaped: a seller's title holding terminal
escapes (ESC ] 0 ; ... BEL retitles a terminal, ESC [ 31 m recolours it) is cleaned on ingest, and
whatever stored text still holds one is printed with the control shown as \\x1b."""

from __future__ import annotations

import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from conftest_exports import make_ranking_database
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.models.records import Listing
from gpuvalue.models.text_safety import clean_text, escape_controls
from gpuvalue.models.listing_enrichment import listing_rows

runner = CliRunner()
HOSTILE = "NVIDIA GeForce RTX 4070 SUPER 12GB \x1b]0;pwned\x07\x1b[31mWORKS\x1b[0m \x9b2J\x00\x7f"
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def test_clean_text_drops_escape_sequences_whole_and_every_control():
    assert clean_text(HOSTILE) == "NVIDIA GeForce RTX 4070 SUPER 12GB WORKS 2J"
    assert clean_text("a\tb\nc") == "a b c"
    assert clean_text("RTX 3090 ✓ é") == "RTX 3090 ✓ é"


def test_escape_controls_shows_them():
    assert escape_controls("x\x1b[31my\x07\x9b") == "x\\x1b[31my\\x07\\x9b"
    assert escape_controls("line\nnext\ttab") == "line\nnext\ttab"


class _Matcher:
    def match(self, title, subtitle=None, condition=None):
        from gpuvalue.models.records import MatchResult

        return MatchResult(model=None, reason=f"seen {title!r}")


def test_listing_rows_store_no_control():
    listing = Listing(source="ebay-html", listing_id="1\x1b", title=HOSTILE, subtitle="Pre-Owned\x07",
                      condition="Used\x1b[0m", price=500.0, currency="USD", seen_at=datetime(2025, 1, 1, tzinfo=UTC))
    table = listing_rows([listing], _Matcher())
    row = table.to_pylist()[0]
    for column in ("title", "subtitle", "condition", "listing_id", "match_reason"):
        assert not CONTROL.search(row[column] or ""), (column, row[column])
    assert row["title"] == "NVIDIA GeForce RTX 4070 SUPER 12GB WORKS 2J"


@pytest.fixture
def raw_db(tmp_path) -> Path:
    """A warehouse holding a title stored raw, as an older gpuvalue stored it."""
    path = tmp_path / "gpuvalue.duckdb"
    con = make_ranking_database(path)
    con.execute("UPDATE listings SET title = ? WHERE listing_id = '1cdx9z'", [HOSTILE])
    con.execute("UPDATE ranking_daily SET model = model")  # the ranking unchanged
    con.close()
    return path


def test_sql_prints_a_stored_control_escaped(raw_db):
    for args in (["sql", "SELECT title FROM listings"], ["sql", "--json", "SELECT title FROM listings"]):
        res = runner.invoke(app, [*args, "--db", str(raw_db)])
        assert res.exit_code == 0, res.output
        assert not CONTROL.search(res.stdout), repr(res.stdout)
        assert "WORKS" in res.stdout


@pytest.mark.e2e
def test_a_hostile_title_imported_reaches_no_output_raw(replay_db, tmp_path):
    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    sold = tmp_path / "sold.csv"
    title = HOSTILE.replace("\x00", "")  # a NUL makes the file binary, refused whole
    rows = [f'"{title} #{i}",Pre-Owned,{480 + i},0,2025-11-{20 + i:02d},https://www.ebay.com/itm/99887766{i:02d}'
            for i in range(5)]
    sold.write_text("title,subtitle,price,shipping,sold_date,link\n" + "\n".join(rows) + "\n", encoding="utf-8")
    res = runner.invoke(app, ["import", "listings", str(sold), "--source", "hostile", "--db", str(db)])
    assert res.exit_code == 0, res.output
    outputs = {}
    for name, args in {
        "sql": ["sql", "SELECT title, subtitle FROM listings WHERE source = 'import:hostile'"],
        "sql --json": ["sql", "--json", "SELECT title FROM listings WHERE source = 'import:hostile'"],
        "rank --json": ["rank", "--json", "--all"],
        "gpus": ["gpus", "4070 SUPER"],
    }.items():
        got = runner.invoke(app, [*args, "--db", str(db)])
        assert got.exit_code == 0, (name, got.output)
        outputs[name] = got.stdout
    assert "WORKS" in outputs["sql"] and "4070 SUPER" in outputs["sql --json"]
    exported = tmp_path / "exports"
    got = runner.invoke(app, ["export", "--all", "--out", str(exported), "--db", str(db)])
    assert got.exit_code == 0, got.output
    for path in exported.iterdir():
        if path.suffix != ".parquet":
            outputs[path.name] = path.read_text(encoding="utf-8")
    for name, text in outputs.items():
        assert not CONTROL.search(text), (name, CONTROL.search(text))
