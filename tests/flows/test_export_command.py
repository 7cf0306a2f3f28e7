"""`gpuvalue export`'s defaults: the format follows the file's name and the file the format, so the
command alone writes ranking.csv, and a file never holds another format than its name says."""

from __future__ import annotations

import csv
import json

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from conftest_exports import make_ranking_database
from gpuvalue.flows.cli import app

runner = CliRunner()


@pytest.fixture
def db(tmp_path, monkeypatch):
    path = tmp_path / "g.duckdb"
    make_ranking_database(str(path)).close()
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    return path


def _export(db, *args):
    res = runner.invoke(app, ["export", "--db", str(db), *args])
    assert res.exit_code == 0, res.output
    return res


def test_export_alone_writes_ranking_csv(db, tmp_path):
    """It failed with '--format must be csv, json, parquet or feed' though --out named ranking.csv."""
    _export(db)
    rows = list(csv.DictReader((tmp_path / "work" / "ranking.csv").open(encoding="utf-8")))
    assert rows and "model" in rows[0]


def test_the_format_is_read_from_the_files_suffix_and_the_file_named_after_the_format(db, tmp_path):
    work = tmp_path / "work"
    _export(db, "--out", "r.JSON")
    assert json.loads((work / "r.JSON").read_text(encoding="utf-8"))["rows"]
    _export(db, "--out", "r.parquet")
    assert pq.read_table(work / "r.parquet").num_rows > 0
    # A format without a file: the file is named after it (JSON used to land in ranking.csv).
    _export(db, "--format", "json")
    assert json.loads((work / "ranking.json").read_text(encoding="utf-8"))["rows"]
    assert not (work / "ranking.csv").exists()
    feed = _export(db, "--format", "feed")
    items = json.loads((work / "feed.json").read_text(encoding="utf-8"))["items"]
    assert f"wrote {len(items)} items to feed.json" in feed.stdout  # a feed holds items, not rows
    _export(db, "--format", "parquet")
    assert pq.read_table(work / "ranking.parquet").num_rows > 0


def test_all_without_a_folder_writes_into_exports(db, tmp_path):
    """It wrote every file into a folder named ranking.csv."""
    res = _export(db, "--all")
    assert (tmp_path / "work" / "exports" / "ranking.csv").is_file() and "exports/ranking.json" in res.stdout
    assert not (tmp_path / "work" / "ranking.csv").exists()


def test_a_name_that_tells_no_format_is_a_one_line_error(db, tmp_path):
    res = runner.invoke(app, ["export", "--db", str(db), "--out", "ranking.txt"])
    assert res.exit_code == 2, res.output
    assert res.output.startswith("error: cannot tell the format from the name ranking.txt: give --format csv, json, "
                                 "parquet or feed")
    assert "Traceback" not in res.output and not (tmp_path / "work" / "ranking.txt").exists()
    _export(db, "--out", "ranking.txt", "--format", "csv")  # a named format writes any file name
    assert (tmp_path / "work" / "ranking.txt").read_text(encoding="utf-8").startswith("rank,")
