"""A listing as the warehouse keeps it: the source's ``Listing`` and what the enrich stage derives of it.

The table ``listings`` is declared here and nowhere else: its columns are the fields of ``Listing``
(less the two the enrich stage turns into others: ``seen_at`` becomes ``first_seen`` and
``last_seen``, ``ended`` becomes ``status``) followed by those of ``ListingEnrichment``. The
warehouse derives the table and its load from these (``warehouse/record_tables.py``); a nullable
field added to ``Listing`` (or to a source's own subclass of it) is a new column on the next load.

Every listing a listing source or an import brought is one row per ``KEY``. The table carries no key
index: bulk upserts through DuckDB's key index ran at a third of the speed of a MERGE on a hash
join, so the load keeps one row per key itself (a deduplicated batch, merged on the key) and the
integrity checks verify it. ``rematch`` and ``reparse`` rewrite what the enrich stage derived.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, Field

from gpuvalue.models.record_columns import Column, arrow_schema, columns
from gpuvalue.models.records import Listing, Record

if TYPE_CHECKING:
    import pyarrow as pa

TABLE = Listing.stored_as.table
KEY = Listing.stored_as.key  # one row per listing: a later sighting merges into it
# The listing's fields the enrich stage turns into others, not stored as they are.
CONSUMED = ("seen_at", "ended")


class ListingEnrichment(Record):
    """What the enrich stage derives of one listing: its catalog match, condition class, USD total
    and the span of its sightings."""

    total_usd: float | None = Field(None, description="(price + shipping) converted, NULL when not convertible")
    fx_source: str | None = Field(None, description="where the rate came from, or why the total is held out")
    condition_class: str | None = Field(None, description="used|refurbished|open_box|new|parts|unknown")
    first_seen: datetime
    last_seen: datetime
    status: Literal["active", "sold", "ended"]
    model: str | None = Field(None, description="matched canonical model, NULL when not one card")
    match_reason: str


def row_columns(record: type[BaseModel] = Listing) -> tuple[Column, ...]:
    """The stored columns of listings of the kind ``record`` (``Listing`` or a source's subclass)."""
    return columns(record, exclude=CONSUMED) + columns(ListingEnrichment)


def row_schema(record: type[BaseModel] = Listing) -> pa.Schema:
    """The Arrow schema of a batch of enriched listings of the kind ``record``."""
    return arrow_schema(row_columns(record))


ROW_COLUMNS = row_columns()
