"""An import of sold listings in batches: memory stays that of one batch, whatever the file's size.

The file is read a batch of rows at a time, and each batch is matched, converted and loaded before
the next is read (a million rows held at once as ``Listing`` objects took 3.4 GB). A row that
refuses the file (a sale dated in the future, a price that is no number) may come late in it, so
the file is read through once first, keeping nothing, and loaded only when it reads whole: as
when the whole file was read into memory first, a refused file stores nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from gpuvalue.flows import stages as S
from gpuvalue.flows.enrich import listing_enricher
from gpuvalue.models.listing_enrichment import matched_rows
from gpuvalue.scrapers.listing_csv import CsvImport
from gpuvalue.warehouse import load, queries

KEPT_REJECTIONS = 10  # the rows named in the output; the rest are counted


@dataclass
class ImportOutcome:
    read: int = 0  # rows of the file read
    imported: int = 0  # rows loaded (a row the file repeats counts each time)
    matched: int = 0
    stored_before: int = 0
    replaced: int | None = None  # the data set's stored listings removed first (--replace)
    rejected: list[tuple[int, str]] = field(default_factory=list)  # the first KEPT_REJECTIONS
    rejected_count: int = 0
    elsewhere: dict[str, str] = field(default_factory=dict)  # listing id -> the other import holding it


def import_batches(ctx: S.StageContext, name: str, batches: Iterable[CsvImport], *, replace: bool,
                   progress: Callable[[ImportOutcome], None] = lambda outcome: None,
                   recorded: Callable[[ImportOutcome], None] = lambda outcome: None,
                   stop_asked: Callable[[], bool] = lambda: False) -> ImportOutcome:
    """Load every batch as the data set ``name`` (matched as the match stage does), each batch
    committed before the next is read; prices and the ranking are left to the caller, once, after it.

    The caller has read the file through once already (``check_file``), so no row refuses it halfway;
    a process killed halfway leaves the batches it committed, and importing the file again adds the
    rest (a data set keeps each sale once). ``recorded(outcome)`` runs in each batch's transaction,
    before its commit: the import's attempt records what it has kept so far in the same commit, so
    that an import killed at any point says how far it got (``gpuvalue runs``). ``stop_asked()``
    (Ctrl-C) is heard between batches: the import stops with KeyboardInterrupt after a commit, never
    inside DuckDB's work on a batch."""
    con = ctx.con
    outcome = ImportOutcome()
    enrich = listing_enricher(ctx, None)  # a CSV import brings no vocabulary of its own
    con.execute("BEGIN TRANSACTION")
    try:
        if replace:  # a corrected file takes the place of the data set: its rows and the prices they made go
            outcome.replaced = queries.listings_stored(con, name)
            queries.delete_source_rows(con, "listing", name)
            load.rebuild_price_observations(con)
        outcome.stored_before = queries.listings_stored(con, name)
        for batch in batches:
            if stop_asked():
                raise KeyboardInterrupt
            outcome.read += len(batch.listings) + len(batch.rejected)
            outcome.rejected_count += len(batch.rejected)
            outcome.rejected.extend(batch.rejected[:KEPT_REJECTIONS - len(outcome.rejected)])
            listings = batch.listings
            # One sale imported under two names would count twice in a median.
            elsewhere = queries.listings_imported_elsewhere(con, name, [x.listing_id for x in listings])
            if elsewhere:
                outcome.elsewhere.update(elsewhere)
                listings = [x for x in listings if x.listing_id not in elsewhere]
            rows = enrich(listings)
            outcome.imported += load.load_listings(con, rows)
            outcome.matched += matched_rows(rows)
            del rows, listings, batch
            recorded(outcome)
            # Measured: one transaction over a million rows grew the import's memory 2x from 200k rows.
            con.execute("COMMIT")
            con.execute("BEGIN TRANSACTION")
            progress(outcome)
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return outcome


def check_file(batches: Iterable[CsvImport], progress: Callable[[int], None] = lambda rows: None) -> int:
    """Read the whole file once, keeping nothing, so that a row refusing the file (ParseError) is found
    before anything is stored; the rows read."""
    read = 0
    for batch in batches:
        read += len(batch.listings) + len(batch.rejected)
        progress(read)
    return read
