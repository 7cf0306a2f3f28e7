"""`gpuvalue reparse` reports what it rebuilt in the units a reader counts: listings, not the rows of
every fetch that showed them; and with nothing fetched since the given day it says so and touches
nothing (issue item 8). No network: the pages are recordings of the packaged replay archive."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import duckdb
import pytest
from typer.testing import CliRunner

import gpuvalue.flows.cli.reparse  # noqa: F401  (registers the command)
from gpuvalue.flows.cli import app
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.replay import packaged_replay_dir
from gpuvalue.warehouse.db import open_database

runner = CliRunner()
FIRST_RUN = datetime(2026, 11, 29, 6, 0, tzinfo=timezone.utc)


@pytest.fixture
def twice_fetched(tmp_path) -> tuple[Path, set[str]]:
    """A warehouse whose raw archive holds two daily runs that fetched the same two eBay searches."""
    db = tmp_path / "gpuvalue.duckdb"
    open_database(db).close()
    recorded = Archive(packaged_replay_dir())
    entries = [e for e in recorded.entries() if e.source == "ebay-browse"][:2]
    pages = [recorded.page(e) for e in entries]
    raw = Archive(tmp_path / "raw")
    for day in (0, 1):
        for page in pages:
            raw.put(page.model_copy(update={"fetched_at": FIRST_RUN + timedelta(days=day)}))
    ids = {li.listing_id for li in registry.get("ebay-browse").parse_pages(pages).listings}
    assert ids
    return db, ids


def _listing_count(db: Path) -> int:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute("SELECT count(*) FROM listings WHERE source = 'ebay-browse'").fetchone()[0]
    finally:
        con.close()


def test_listings_seen_in_two_fetches_are_counted_once(twice_fetched):
    db, ids = twice_fetched
    res = runner.invoke(app, ["reparse", "--db", str(db)])
    assert res.exit_code == 0, res.output
    assert _listing_count(db) == len(ids)
    assert f"ebay-browse: {len(ids)} listings rebuilt from 2 fetches in the raw archive" in res.output


def test_nothing_fetched_since_the_day_says_so_and_changes_nothing(twice_fetched):
    db, _ = twice_fetched
    before = db.read_bytes()
    res = runner.invoke(app, ["reparse", "--db", str(db), "--since", "2026-12-01"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() == "nothing fetched since 2026-12-01; nothing rebuilt"
    assert db.read_bytes() == before and _listing_count(db) == 0
    assert not Path(str(db) + ".lock").exists()
