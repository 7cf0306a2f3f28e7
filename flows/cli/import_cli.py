"""`gpuvalue import listings` (sold listings from a CSV, through the live data's matching and
cleaning) and `gpuvalue rematch` (every stored listing matched again), each re-ranking the days."""

from __future__ import annotations

import contextlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, app, err, fail, full_settings, import_app, live_status, out


@import_app.command("listings")
def import_listings(
    file: Annotated[Path, typer.Argument(help="CSV with title, price and sold_date; optional subtitle, shipping, currency, condition and link (other columns, such as total_price, are not read).")],
    source: Annotated[str, typer.Option("--source", help="A name for this data set, e.g. ebay-sold-2020 (stored as import:ebay-sold-2020).")],
    replace: Annotated[bool, typer.Option("--replace", help="Replace the data set's stored sales with this file's: how a corrected file takes the place of the one imported before.")] = False,
    db: DbOpt = None,
) -> None:
    """Import historical sold listings through the same matching and cleaning as live data.

    Importing a file again adds only the sales the data set lacks; to correct a data set (a mistyped price), fix the file and import it with --replace.
    """
    from rich.markup import escape

    from gpuvalue.flows import pipeline as P
    from gpuvalue.scrapers.errors import ParseError
    from gpuvalue.scrapers import listing_csv
    from gpuvalue.scrapers.listing_csv import iter_listing_csv
    from gpuvalue.warehouse import load, queries, run_attempts
    from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database
    from gpuvalue.warehouse.queries import listings_by_condition, listings_stored

    # The stored name, as every output shows it, is accepted too: `--source import:x` is import:x.
    source = source.strip().removeprefix("import:").strip()
    if not source:
        fail("--source needs a name for the data set, e.g. ebay-sold-2020")
    if not file.is_file():
        fail(f"no such file: {file}")
    settings = full_settings(db)
    name = f"import:{source}"
    from gpuvalue.flows import stages as S
    from gpuvalue.flows.import_stream import check_file, import_batches

    attempt = f"{name}@{datetime.now(timezone.utc):%Y%m%dT%H%M%S.%f}"
    loaded = [0]
    undone = [False]

    def kept(outcome) -> None:
        """The attempt's note, in the batch's transaction: what a kill at any later point leaves."""
        loaded[0] = outcome.imported
        run_attempts.import_note(con, attempt, _import_note(file, name, outcome.imported))

    def shown(outcome) -> None:
        status(f"importing {file}: {outcome.read:,} rows read, {outcome.imported:,} loaded, "
               f"{outcome.matched:,} matched")

    def batches():
        handle = stack.enter_context(file.open(encoding="utf-8-sig", newline=""))
        return iter_listing_csv(handle, name, imported_at, url=str(file), batch_rows=listing_csv.DEFAULT_BATCH_ROWS)

    imported_at = datetime.now(timezone.utc)
    with live_status(f"reading {file}") as status, contextlib.ExitStack() as stack:
        try:
            # Read through once before the lock: a row refusing the file, however late, stores nothing.
            check_file(batches(), lambda rows: status(f"reading {file}: {rows:,} rows"))
            with RunLock(settings.db, "import"):
                con = open_database(settings.db)
                try:
                    ctx = S.StageContext(con=con, settings=settings, loaded_at=P.utcnow())
                    days = S.ranked_days(con)
                    # A new data set stopped by Ctrl-C keeps nothing; one that held rows keeps a recorded,
                    # resumable state (its earlier rows and those of the batches committed).
                    fresh = not replace and listings_stored(con, name) == 0
                    run_attempts.begin_import(con, attempt, imported_at.date(), _import_note(file, name, 0))
                    try:
                        with _ctrl_c_between_batches() as stop_asked:
                            done = import_batches(ctx, name, batches(), replace=replace, progress=shown,
                                                  recorded=kept, stop_asked=stop_asked)
                    except BaseException as exc:
                        if isinstance(exc, KeyboardInterrupt) and fresh:
                            with load.transaction(con):
                                queries.delete_source_rows(con, "listing", name)
                                load.rebuild_price_observations(con)
                                run_attempts.finish(con, attempt, "cancelled",
                                                    f"import of {file.name} as {name}: stopped by Ctrl-C, nothing kept")
                            undone[0] = True
                            raise
                        why = "interrupted" if isinstance(exc, KeyboardInterrupt) else "failed"
                        with contextlib.suppress(Exception):
                            run_attempts.finish(con, attempt, why, _import_note(file, name, loaded[0], stopped=True))
                        raise
                    # Every row is in: the data set is whole again (the checks of the re-ranking see so).
                    run_attempts.finish(con, attempt, "ok", f"import of {file.name} as {name}: {done.imported:,} rows")
                    status(f"re-ranking {len(days)} day(s) with the listings from {file}")
                    S.rerank_after(ctx, {}, stages=("rank",), days=days)
                    new = listings_stored(con, name) - done.stored_before
                    conditions = listings_by_condition(con, name)
                finally:
                    con.close()
        except KeyboardInterrupt:
            if undone[0]:
                fail(f"interrupted (Ctrl-C): nothing of {file.name} was kept ({name} holds no rows)", code=130)
            fail(f"interrupted (Ctrl-C): {_import_note(file, name, loaded[0], stopped=True)}", code=130)
        except ParseError as exc:
            fail(str(exc))
        except UnicodeDecodeError as exc:
            fail(f"{file} is not UTF-8 text (byte {exc.start}: {exc.reason}); nothing was imported")
        except OSError as exc:
            fail(f"cannot read {file}: {exc.strerror or exc}")
        except WarehouseError as exc:
            fail(str(exc))
    replaced, elsewhere, imported = done.replaced, done.elsewhere, done.imported
    skipped = f"; skipped {done.rejected_count} row(s), each named below" if done.rejected_count else ""
    # A row the warehouse already held (an earlier import of the file) or that the file repeats is stored once.
    again = f" ({new:,} new; the other {imported - new:,} already stored or repeated in the file)" if new != imported else ""
    if replaced:
        out.print(f"replaced the {replaced:,} stored listing{'' if replaced == 1 else 's'} of {name}", soft_wrap=True)
    out.print(f"imported {imported:,} listing{'' if imported == 1 else 's'} from {file} as {name}{again}; "
              f"{done.matched:,} matched to one GPU model{skipped}; re-ranked {len(days)} day(s)",
              soft_wrap=True)
    counted, unknown = conditions["counted"], conditions["unknown"]
    if counted < conditions["matched"]:
        # A sale counts toward a used price only with a condition the import can read: say how many do.
        why = (f"; {unknown:,} have no condition it can read (a condition column, or a subtitle that starts "
               "with eBay's condition, such as 'Pre-Owned')" if unknown else "")
        out.print(f"{name} now holds {conditions['matched']:,} matched sale(s): {counted:,} count toward used "
                  f"prices (used, refurbished, open box){why}", soft_wrap=True)
    if elsewhere:
        others = ", ".join(sorted(set(elsewhere.values())))
        err.print(f"[yellow]skipped:[/yellow] {len(elsewhere):,} listing(s) already imported as {escape(others)}: "
                  "a sale counts once", highlight=False, soft_wrap=True)
    for row_number, reason in done.rejected[:10]:
        err.print(f"[yellow]skipped:[/yellow] row {row_number}: {escape(reason)}", highlight=False, soft_wrap=True)
    if done.rejected_count > 10:
        err.print(f"[yellow]skipped:[/yellow] {done.rejected_count - 10} more row(s) like these", highlight=False)


@contextlib.contextmanager
def _ctrl_c_between_batches():
    """Ctrl-C during the load asks it to stop at the end of the batch in hand (a second Ctrl-C stops
    at once): raised inside DuckDB's work, it aborted the transaction and surfaced as a traceback."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield lambda: False
        return
    asked = threading.Event()

    def ask(signum, frame) -> None:
        if asked.is_set():
            raise KeyboardInterrupt
        asked.set()

    before = signal.signal(signal.SIGINT, ask)
    try:
        yield asked.is_set
    finally:
        signal.signal(signal.SIGINT, before)


def _import_note(file: Path, name: str, rows: int, stopped: bool = False) -> str:
    """What an import's attempt says of itself while it runs, and if it never ends: how far it got and
    how to finish it (the rows it kept stay; importing the file again adds the rest, each sale once)."""
    kept = f"import of {file.name} as {name}: {rows:,} rows loaded"
    if stopped:
        return f"{kept} before it stopped; import the file again to load the rest (a sale is stored once)"
    return f"{kept} so far; if it never finishes, import the file again to load the rest"


@app.command()
def rematch(db: DbOpt = None) -> None:
    """Re-match every stored listing with the current matcher (e.g. after an upgrade), then re-rank."""
    import pyarrow as pa

    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows import stages as S
    from gpuvalue.warehouse import load, queries
    from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database

    settings = full_settings(db)
    if not settings.db.exists():
        fail(f"no database at {settings.db}: run `gpuvalue run` (or `gpuvalue run --replay`) first")
    try:
        with RunLock(settings.db, "rematch"):
            con = open_database(settings.db)
            try:
                matcher = S.catalog_matcher(con)
                rows = queries.listings_to_rematch(con)
                results = [matcher.match(title, subtitle, condition) for _, _, title, subtitle, condition, _ in rows]
                changed = sum(1 for row, r in zip(rows, results) if row[5] != r.model)
                rematched = pa.table({
                    "source": [row[0] for row in rows], "listing_id": [row[1] for row in rows],
                    "model": [r.model for r in results], "match_reason": [r.reason for r in results],
                }, schema=pa.schema([("source", pa.string()), ("listing_id", pa.string()),
                                     ("model", pa.string()), ("match_reason", pa.string())]))
                with load.transaction(con):
                    queries.apply_rematch(con, rematched)
                    load.rebuild_price_observations(con)
                # Prices and rankings already materialized were built from the old matches.
                ctx = S.StageContext(con=con, settings=settings, loaded_at=P.utcnow())
                days = S.ranked_days(con)
                S.rerank_after(ctx, {}, stages=("rank",), days=days)
            finally:
                con.close()
    except WarehouseError as exc:
        fail(str(exc))
    out.print(f"re-matched {len(rows)} listings ({changed} changed model); re-ranked {len(days)} day(s)")
