"""The daily Prefect flow: specs -> listings -> matching -> performance -> ranking -> exports.

Fetching and parsing run as separate tasks per source (concurrently, on threads or a Dask
cluster); loading runs in the flow process because DuckDB has one writer, each source in its own
transaction, with the write connection held only for the load windows. Listing sources are
fetched after the specs are loaded: the cards they shop for come from the catalog, by the
coverage rule (``models/coverage.py``), and reach each fetch as ``FetchContext.shopping_list``.
"""

from __future__ import annotations

import contextlib
import logging
import uuid
from collections.abc import Callable
from datetime import date, datetime, timezone
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE
from prefect.utilities.annotations import quote

from gpuvalue.flows import fallback as F
from gpuvalue.flows import pipeline as P
from gpuvalue.flows import run_report
from gpuvalue.flows import stages as S
from gpuvalue.flows.plain_run import call, running_plain, submit
from gpuvalue.flows.settings import Settings
from gpuvalue.models.source_batches import ParsedSource, SourceFetch
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.errors import FetchError, ParseError
from gpuvalue.warehouse import load
from gpuvalue.warehouse import run_attempts
from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database
from gpuvalue.warehouse.environment import (
    corruption_problem, environment_problem, is_environment_failure, looks_corrupted,
)


def _transient(task, task_run, state) -> bool:
    """Retry a fetch only for faults that may pass; a parse error or a missing recording will not."""
    try:
        state.result()
    except ParseError:
        return False
    except FetchError as exc:
        # A refusal (sign-in wall, 403, robots.txt), an unreachable host or a missing recording gets the
        # same answer again; the error says which kind it is.
        return exc.retryable
    except Exception:
        return True
    return False


@task(name="fetch", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=_transient,
      cache_policy=NO_CACHE, task_run_name="fetch-{source}")
def fetch_task(source: str, settings: Settings, replay: bool, replay_dir: str | None,
               shopping_list: tuple[str, ...] = ()) -> SourceFetch:
    return P.fetch_source(source, settings, replay, replay_dir, progress=_logged_and_shown(_logger()),
                          shopping_list=shopping_list)


@task(name="parse", cache_policy=NO_CACHE, task_run_name="parse-{source}")
def parse_task(source: str, fetched: SourceFetch | None) -> ParsedSource:
    parsed = registry.get(source).parse_pages(fetched.pages if fetched else None)
    if fetched:
        parsed.warnings[:0] = fetched.warnings
    return parsed


class ExpectedFailureFilter(logging.Filter):
    """Keeps a failed source to one line in the terminal.

    A fetch or parse failure is expected (an unreachable site, a changed page): the flow logs one
    line for it ("source X failed: ..."). Prefect would say it again at length: the failed task's
    state line, its report with a traceback once retries are spent, and a "NotReady" line for the
    parse task waiting on it. On the console these are dropped for those errors only; the Prefect
    UI (its API log handler) keeps them all, and any other exception keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not record.name.startswith("prefect.task_runs"):
            return True
        error = record.exc_info[1] if record.exc_info else None
        if isinstance(error, (FetchError, ParseError)):
            return False
        if error is not None and (is_environment_failure(error) or looks_corrupted(error)):
            return False  # a full disk or a damaged file: the run's one line says it (daily_flow)
        message = record.getMessage()
        if message.startswith("Finished in state Failed(") and any(
                f"exception {name}:" in message for name in _expected_error_names()):
            return False
        # A parse task whose fetch failed: the fetch's failure is the news, already told.
        return not (getattr(record, "task_name", None) == "parse" and message.startswith("Finished in state NotReady("))


def _expected_error_names() -> set[str]:
    names: set[str] = set()
    todo: list[type] = [FetchError, ParseError]
    while todo:
        cls = todo.pop()
        names.add(cls.__name__)
        todo.extend(cls.__subclasses__())
    return names


def _quiet_expected_failures() -> None:
    """Installs ExpectedFailureFilter on the console handlers Prefect configured (once)."""
    from prefect.logging.handlers import PrefectConsoleHandler

    for handler in logging.getLogger().handlers:
        if isinstance(handler, PrefectConsoleHandler) and not any(
                isinstance(f, ExpectedFailureFilter) for f in handler.filters):
            handler.addFilter(ExpectedFailureFilter())


def _logger() -> logging.Logger | logging.LoggerAdapter:
    try:
        return get_run_logger()
    except Exception:
        return logging.getLogger("gpuvalue.flow")


def _logged_and_shown(logger: logging.Logger | logging.LoggerAdapter) -> Callable[[str], None]:
    """A line about long work (a fetch's pages, a cross-validation's folds): in the run's log, and
    on its live line where a terminal shows one."""

    def say(message: str) -> None:
        logger.info(message)
        P.notify_progress(message)

    return say


@flow(name="gpuvalue-daily", log_prints=False)
def daily_flow(
    as_of: date | None = None,
    replay: bool = False,
    db: str | None = None,
    replay_dir: str | None = None,
    sources: list[str] | None = None,
    export: bool = True,
) -> P.RunSummary:
    settings = Settings(**({"db": Path(db)} if db else {}), **({"sources": tuple(sources)} if sources else {}))
    # One clock for everything: listings are stamped in UTC, so "today" is the UTC date.
    as_of = as_of or datetime.now(timezone.utc).date()
    logger = _logger()
    _quiet_expected_failures()
    summary = P.RunSummary(run_id=uuid.uuid4().hex[:12], as_of=as_of, replay=replay, db=settings.db)
    summary.fail_on_alarm = settings.fail_on_quality_alarm
    try:
        with RunLock(settings.db):
            _attempt(settings, summary, replay, replay_dir, export, logger)
    except Exception as exc:
        # The warehouse refused (held past the writer's patience, full, read-only, damaged), or the disk
        # did: one line, and the flow ends at once rather than failing with a traceback and its logs'
        # long drain.
        if isinstance(exc, WarehouseError):
            summary.gave_up = str(exc)
        elif is_environment_failure(exc):
            summary.gave_up = environment_problem(exc, getattr(exc, "filename", None) or settings.data_dir)
        elif looks_corrupted(exc):
            summary.gave_up = corruption_problem(settings.db, exc)
        else:
            raise
        logger.error("gave up: %s", summary.gave_up)
        return summary
    _publish_artifacts(settings, summary)
    return summary


def _attempt(settings: Settings, summary: P.RunSummary, replay: bool, replay_dir: str | None, export: bool,
             logger) -> None:
    """The run, recorded as a whole in run_attempts: a run that never gets to the end stays 'running',
    which the next run (or `gpuvalue runs`) calls interrupted."""
    con = _open_writer(settings, logger)
    try:
        found = run_attempts.begin(con, summary.run_id, summary.as_of, summary.replay)
    except BaseException:
        con.close()
        raise
    if found:
        summary.notices.append(run_attempts.interrupted_words(found))
        logger.warning(summary.notices[-1])
    status, note = "failed", None
    try:
        _run(settings, summary, con, replay, replay_dir, export, logger)
        status = "failed" if summary.failed else "ok"
        note = f"failed sources: {', '.join(summary.failed)}" if summary.failed else None
    except KeyboardInterrupt:
        status, note = "interrupted", "stopped by Ctrl-C"
        raise
    except BaseException as exc:
        note = _one_line(exc)
        raise
    finally:
        with contextlib.suppress(Exception):  # the run's own error is the news
            con = _open_writer(settings, logger)
            try:
                run_attempts.finish(con, summary.run_id, status, note)
            finally:
                con.close()


def _open_writer(settings: Settings, logger):
    """The write connection, waiting up to GPUVALUE_WRITE_WAIT_S for readers (a `gpuvalue sql`
    query, a duckdb CLI) to let go, and saying so every few seconds."""
    said = [0.0]

    def waiting(holder: str, waited_s: float) -> None:
        if waited_s - said[0] >= 5 or said[0] == 0:
            said[0] = max(waited_s, 0.001)
            message = (f"warehouse: waiting for {holder} to close {settings.db} ({waited_s:.0f} s of "
                       f"{settings.write_wait_s:g} s, GPUVALUE_WRITE_WAIT_S)")
            logger.info(message)
            P.notify_progress(message)

    return open_database(settings.db, wait_s=settings.write_wait_s, waiting=waiting)


def _run(settings: Settings, summary: P.RunSummary, con, replay: bool, replay_dir: str | None, export: bool,
         logger) -> None:
    """The run's stages; ``con`` is the connection run_attempts.begin wrote with, closed here before
    the fetches."""
    listing = [n for n in settings.sources if registry.get(n).kind == "listing"]
    first = [n for n in settings.sources if n not in listing]
    try:  # what each source has stored, for the line a failing source gets (flows/fallback.py)
        summary.stored = {} if replay else F.stored_data_dates(con)
    finally:
        con.close()
    results = _fetch_and_parse(settings, summary, replay, replay_dir, logger, first)
    con = _open_writer(settings, logger)
    try:
        ctx = _load_stage(con, settings, summary, results, logger)
        shopping = _shopping_list(con, settings, summary, logger)
    finally:
        con.close()
    listed = _fetch_and_parse(settings, summary, replay, replay_dir, logger, listing, shopping)
    results.update(listed)
    con = _open_writer(settings, logger)
    try:
        ctx.con = con
        _warehouse_stages(con, ctx, settings, summary, results, listing, logger)
    finally:
        con.close()
    if export:
        call(export_task, settings, summary)


def _shopping_list(con, settings: Settings, summary: P.RunSummary, logger) -> tuple[str, ...]:
    """The searches the listing sources make: the coverage rule over the catalog just loaded."""
    found = S.coverage(con, settings)
    summary.coverage_models, summary.coverage_searches = len(found.models), len(found.queries)
    if found.unknown:
        summary.alarms.append(f"coverage: not catalog models, ignored: {', '.join(found.unknown)} "
                              "(GPUVALUE_COVERAGE_ADD / GPUVALUE_COVERAGE_REMOVE)")
    logger.info("coverage: %d models, %d searches", summary.coverage_models, summary.coverage_searches)
    return found.queries


def _fetch_and_parse(settings: Settings, summary: P.RunSummary, replay: bool, replay_dir: str | None,
                     logger, names: list[str], shopping_list: tuple[str, ...] = ()) -> dict[str, ParsedSource]:
    """The fetch and parse stages for ``names``: one task each per source, concurrently; pages archived as
    they came. Listing sources get the shopping list (empty: their own settings' searches)."""
    recorded = P.recorded_sources(replay_dir) if replay else None
    fetches, parses = {}, {}
    with P.StageTimer(summary, "fetch+parse"):
        for name in names:
            src = registry.get(name)
            if src.reads_embedded(settings):
                parses[name] = submit(parse_task, name, None)
                continue
            if recorded is not None and name not in recorded:
                summary.outcomes[name] = P.SourceOutcome(name, "not recorded", warnings=[f"{name}: no recording in the replay archive"])
                continue
            fetches[name] = submit(fetch_task, name, settings, replay, replay_dir, shopping_list)
            parses[name] = submit(parse_task, name, fetches[name])
        results: dict[str, ParsedSource] = {}
        pages_by_source: dict[str, list] = {}
        for name, fut in parses.items():
            try:
                if name in fetches:
                    fetched = fetches[name].result()
                    pages_by_source[name] = fetched.pages
                    if not fetched.pages and fetched.warnings:
                        summary.outcomes[name] = P.SourceOutcome(name, "skipped", warnings=fetched.warnings)
                        continue
                results[name] = fut.result()
            except Exception as exc:  # one source failing never stops the others
                _failed(settings, summary, name, exc, replay, results, logger)

    with P.StageTimer(summary, "archive"):
        archive = Archive(settings.raw_archive_dir)
        for name, pages in pages_by_source.items():
            P.archive_pages(archive, pages)
    return results


def _failed(settings: Settings, summary: P.RunSummary, name: str, exc: BaseException, replay: bool,
            results: dict[str, ParsedSource], logger) -> None:
    """One line for a source that failed, saying what the ranking keeps of it: its stored data and
    their age, or, where nothing is stored and its data ships with gpuvalue, the shipped data."""
    line = _one_line(exc)
    if not replay and name not in summary.stored and name in F.shipped_sources():
        try:
            shipped = F.read_shipped(name, settings)
        except Exception as fallback_exc:  # the shipped data is the last resort; its failure is said too
            line = f"{line}; the data shipped with gpuvalue did not load either: {_one_line(fallback_exc)}"
        else:
            said = f"{line}; {shipped.note}"
            shipped.parsed.warnings.insert(0, f"{name} failed: {said}")
            results[name] = shipped.parsed
            summary.fallback[name] = said
            logger.error("source %s failed: %s", name, said)
            return
    kept = F.kept_note(name, summary.stored, summary.as_of) if not replay else None
    summary.outcomes[name] = P.SourceOutcome(name, "failed", error=line, kept=kept)
    logger.error("source %s failed: %s", name, f"{line}; {kept}" if kept else line)


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")


def _record(con, summary: P.RunSummary, name: str, outcome: P.SourceOutcome) -> None:
    summary.outcomes[name] = outcome
    try:
        kind = registry.get(name)
        stage = kind.export_kind or kind.kind
    except KeyError:
        stage = "stage"
    load.start_run(con, summary.run_id, name, stage, summary.as_of, summary.replay)
    error = outcome.error or ("; ".join(outcome.warnings) if outcome.warnings else None)
    if error and outcome.kept:
        error = f"{error}; {outcome.kept}"
    load.finish_run(con, summary.run_id, name, outcome.status, outcome.rows, error)


def _record_stage(con, summary: P.RunSummary, result: S.StageResult) -> None:
    for name in result.seconds:
        warnings = result.warnings.get(name, [])
        if name in result.failed:
            outcome = P.SourceOutcome(name, "failed", error=result.failed[name], warnings=warnings)
        elif name in summary.fallback:  # loaded, but from the shipped data: never a live fetch of today
            said = f"{name} failed: {summary.fallback[name]}"  # the run's words for it come first
            outcome = P.SourceOutcome(name, F.STATUS, rows=result.rows.get(name, 0),
                                      warnings=[said, *(w for w in warnings if w != said)])
        else:
            outcome = P.SourceOutcome(name, "ok", rows=result.rows.get(name, 0), warnings=warnings)
        outcome.seconds = result.seconds[name]
        _record(con, summary, name, outcome)
        if name in result.matched and outcome.status == "ok" and outcome.rows:
            load.set_run_matched(con, summary.run_id, name, result.matched[name])


def _stage_task(name: str, retries: int = 0):
    """A warehouse stage as its own Prefect task (name, duration and retries visible in a served run).
    DuckDB has one writer, so these run in the flow's process, one after another."""
    return task(name=name, retries=retries, cache_policy=NO_CACHE, persist_result=False)


@_stage_task("load")
def load_task(ctx: S.StageContext, batches: S.Batches):
    return S.load_stage(ctx, batches)


@_stage_task("match")
def match_task(ctx: S.StageContext, batches: S.Batches):
    return S.match_stage(ctx, batches)


@_stage_task("perf")
def perf_task(ctx: S.StageContext, batches: S.Batches):
    return S.perf_stage(ctx, batches)


@_stage_task("estimate")
def estimate_task(ctx: S.StageContext):
    return S.estimate_stage(ctx)


@_stage_task("rank")
def rank_task(ctx: S.StageContext, days: list[date]):
    return S.rank_stage(ctx, days)


@_stage_task("check")
def check_task(ctx: S.StageContext):
    return S.check_stage(ctx)


@task(name="export", retries=1, retry_delay_seconds=5, cache_policy=NO_CACHE, persist_result=False)
def export_task(settings: Settings, summary: P.RunSummary) -> None:
    with P.StageTimer(summary, "export"):
        _export(settings, summary, _logger())


def _load_stage(con, settings: Settings, summary: P.RunSummary, results: dict[str, ParsedSource],
                logger) -> S.StageContext:
    """Specs (into the catalog), price indexes and rental offers, before the listing sources shop."""
    for name, outcome in list(summary.outcomes.items()):
        _record(con, summary, name, outcome)
    S.register_sources(con)
    ctx = S.StageContext(con=con, settings=settings, loaded_at=P.utcnow(), note=_logged_and_shown(logger))
    # Quoted: Prefect would otherwise walk every parsed record of every source, twice per stage
    # task, looking for futures among the task's inputs (measured: seconds of a replay run).
    batches = quote({name: [parsed] for name, parsed in results.items()})

    with P.StageTimer(summary, "load"):
        loaded, summary.catalog_models, summary.spec_conflicts = call(load_task, ctx, batches)
    _record_stage(con, summary, loaded)
    logger.info("catalog: %d models, %d spec conflicts", summary.catalog_models, summary.spec_conflicts)
    return ctx


def _warehouse_stages(con, ctx: S.StageContext, settings: Settings, summary: P.RunSummary,
                      results: dict[str, ParsedSource], listing: list[str], logger) -> None:
    for name in listing:  # what the listing fetches said before any of them loaded (not recorded, failed)
        if name in summary.outcomes:
            _record(con, summary, name, summary.outcomes[name])
    ctx.forget_matcher()  # a new connection
    batches = quote({name: [parsed] for name, parsed in results.items()})  # as above: Prefect need not walk them
    with P.StageTimer(summary, "match"):
        _record_stage(con, summary, call(match_task, ctx, batches))
    with P.StageTimer(summary, "perf"):
        _record_stage(con, summary, call(perf_task, ctx, batches))
    with P.StageTimer(summary, "estimate"):
        n_est = call(estimate_task, ctx)
    logger.info("estimated performance for %d (model, precision) pairs", n_est)
    with P.StageTimer(summary, "rank"):
        summary.ranked = call(rank_task, ctx, [summary.as_of])[summary.as_of]
    summary.alarms = run_report.quality_alarms(con, summary)
    with P.StageTimer(summary, "check"):
        call(check_task, ctx)
    con.execute("CHECKPOINT")


def _export(settings: Settings, summary: P.RunSummary, logger) -> None:
    try:
        from gpuvalue.warehouse.outputs.export import export_all
    except ImportError:
        return
    from gpuvalue.warehouse.db import open_database as _open

    con = None
    try:
        con = _open(settings.db, read_only=True)
        out = settings.data_dir / "exports"
        from gpuvalue.models.buyer_view import BuyerView
        from gpuvalue.models.rent_vs_buy import Assumptions
        from gpuvalue.warehouse.queries import ranked_days

        day, note = P.export_day(ranked_days(con), summary.as_of)
        if note:
            logger.info(note)
        files = export_all(con, out, as_of=day, reference_gpu=settings.reference_gpu,
                           rent_assumptions=Assumptions.from_settings(settings),
                           view=BuyerView(min_memory_gb=settings.min_memory_gb))
        # The buyer's page beside the downloads: one folder to serve or push to a static host.
        from gpuvalue.models.answers import recommend_settings
        from gpuvalue.warehouse.outputs.buyer_page import write_page

        files["page"] = write_page(con, out, view=BuyerView(min_memory_gb=settings.min_memory_gb),
                                   assumptions=Assumptions.from_settings(settings),
                                   price_window_days=settings.price_window_days, **recommend_settings(settings))
        summary.exports = {k: str(v) for k, v in files.items()}
    except Exception as exc:
        logger.error("export failed: %s", exc)
        summary.alarms.append(f"export failed: {exc}")
    finally:
        if con is not None:
            con.close()


def _publish_artifacts(settings: Settings, summary: P.RunSummary) -> None:
    """The top 20 as a table and a markdown summary, visible in the Prefect UI for each run (a run
    without Prefect has no UI to show them)."""
    if running_plain():
        return
    try:
        from prefect.artifacts import create_markdown_artifact, create_table_artifact
    except ImportError:  # pragma: no cover
        return
    top, markdown = run_report.artifact_contents(settings, summary)
    try:
        create_table_artifact(key="gpuvalue-top20", table=top, description=f"Top 20 for {summary.as_of}"
                              + (" (replay of recorded pages)" if summary.replay else ""))
        create_markdown_artifact(key="gpuvalue-run-summary", markdown=markdown)
    except Exception:  # artifacts are a convenience; a run never fails for them
        logging.getLogger("gpuvalue.flow").warning("could not publish Prefect artifacts", exc_info=True)
