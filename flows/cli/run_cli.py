"""`gpuvalue run`: the daily flow from the command line, on Prefect or (a replay) without it, and
the day's ranking after it."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from rich.table import Table
from rich.text import Text

from gpuvalue.flows.cli import cli_app
from gpuvalue.flows.cli.cli_app import DbOpt, app, check_db_path, err, exc_line, fail, full_settings, open_reader, out, parse_date
from gpuvalue.flows.cli.rank_cli import print_ranking, ranking_title


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

    as_of = parse_date(date_)
    today = cli_app.utc_today()
    if as_of is not None and as_of > today:
        fail(f"--date {as_of} is after today ({today}, UTC); a day can be ranked once it has come")
    if top < 1:
        fail("--top must be at least 1")
    if problem := _unwritable(db):  # before Prefect starts: a run into a read-only or full place does nothing
        fail(problem)
    # A replay fetches nothing: no retries to make, no run worth keeping in Prefect's history; so it
    # runs without Prefect's API and its temporary server (flows/plain_run.py), unless asked.
    from gpuvalue.flows.plain_run import without_prefect

    plain = without_prefect(replay=replay, asked_for_prefect=on_prefect, api_url=os.environ.get("PREFECT_API_URL"),
                            task_runner=task_runner, dask_address=dask_address)
    # First, before the imports below: the server's start (seconds) then overlaps them.
    server = None if plain else prefect_server.launch_temporary_server()
    try:
        settings = full_settings(db)
        check_db_path(settings.db)
        from gpuvalue.warehouse.db import RunLock

        if busy := RunLock(settings.db).held_elsewhere():  # in one line, before the flow starts (and logs)
            fail(busy)
        _check_db_free(settings)
        if dask_address and task_runner is None:
            task_runner = "dask"  # an address given on the command line says which runner is meant
        task_runner = task_runner or settings.task_runner
        if task_runner not in ("thread", "dask"):
            fail("--task-runner must be thread or dask")
        if dask_address and task_runner != "dask":
            fail("--dask-address is the scheduler of --task-runner dask; drop one of them")
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
                parameters: dict[str, Any] = dict(as_of=as_of, replay=replay, db=str(settings.db),
                                  replay_dir=str(replay_dir) if replay_dir else None)
                if plain:
                    from gpuvalue.flows.plain_run import run_plain

                    summary = run_plain(daily_flow, **parameters)
                else:
                    summary = flow_fn(**parameters)
        except (RunLockedError, WarehouseError) as exc:
            fail(str(exc))
        if summary.gave_up:
            fail(summary.gave_up)
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
    con = open_reader(settings)
    try:
        ranked = ranking_rows(con, as_of=summary.as_of, top=top, view=view)
        hidden = hidden_summary(ranking_rows(con, as_of=summary.as_of, top=None, desktop_only=False), view)
        if hidden:  # the flags are rank's, not run's
            hidden += "; `gpuvalue rank` with those flags shows them"
    finally:
        con.close()
    print_ranking(ranked, title=ranking_title(settings.reference_gpu, summary.as_of, summary.replay),
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
        fail(f"could not start Prefect's temporary server: {exc_line(exc)} "
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
        fail(f"{exc} (waited {settings.write_wait_s:g} s; GPUVALUE_WRITE_WAIT_S waits longer)")
    except WarehouseError as exc:
        fail(str(exc))  # damaged, read-only, a full disk: said before Prefect starts
