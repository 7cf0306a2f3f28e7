"""The commands beyond the daily run: catalog, performance, imports, maintenance, scheduling."""

from __future__ import annotations

import contextlib
import json
import math
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Annotated, Optional

import typer

from gpuvalue.models.perf.label import perf_source_label
from gpuvalue.flows.cli_app import (
    DbOpt, _fail, _print_table, _reader, _settings, _status, _write_json_lines, app, err, import_app,
    out, reader_settings, utc_today,
)


@app.command()
def gpus(
    query: Annotated[Optional[str], typer.Argument(help="Case-insensitive substring of the model name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines, one object per model.")] = False,
    db: DbOpt = None,
) -> None:
    """Show catalog rows (all without QUERY) with the source of each value.

    QUERY is first a substring of the model name; when no name contains it, it is read like a listing title (as `gpuvalue match` does), so "rtx3090" finds the GeForce RTX 3090.
    """
    from gpuvalue.warehouse.queries import gpu_rows

    con = _reader(db)
    try:
        rows = gpu_rows(con, query=query)
        reason = None
        if query is not None and not rows:
            from gpuvalue.flows.matcher import catalog_matcher

            found = catalog_matcher(con).match(query)
            reason = found.reason
            if found.model is not None:
                rows = gpu_rows(con, model=found.model)
    finally:
        con.close()
    if query is None and not rows:
        _fail("the catalog is empty: `gpuvalue run` loads the specs (`gpuvalue run --replay`, the recorded pages)")
    if query is not None and not rows:
        _fail(f"no GPU matches {query!r} ({reason}); `gpuvalue gpus` lists the catalog", code=1)
    from gpuvalue.scrapers.sources.spec_corrections import cited_provenance, correction_lines

    if as_json:
        _write_json_lines({**r, "provenance": cited_provenance(r["model"], json.loads(r["provenance"]) if r["provenance"] else {})}
                          for r in rows)
        return
    show = ("model", "vendor", "architecture", "segment", "release_date", "memory_gb", "bandwidth_gb_s",
            "fp32_tflops", "compute_capability", "launch_price_usd")
    _print_table(list(show) + ["sources"], [
        tuple(r[c] for c in show) + (", ".join(sorted({v.get("source", "?") for v in json.loads(r["provenance"] or "{}").values()})),)
        for r in rows
    ])
    for r in rows:  # a corrected value says which document it comes from and what the databases got wrong
        for line in correction_lines(r["model"], json.loads(r["provenance"] or "{}"), r):
            out.print(line, soft_wrap=True, highlight=False)


@app.command()
def coverage(
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines, one object per covered model.")] = False,
    db: DbOpt = None,
) -> None:
    """The cards the daily run shops for: the coverage rule over the stored catalog, with each model's search and its place in `gpuvalue rank` (a card rank hides: its place in `rank --all`, and why).

    Rule (models/coverage.py): at least 8 GB (GPUVALUE_COVERAGE_MIN_MEMORY_GB), run by a current or legacy PyTorch build, released in 2016 or later, a PCIe card for a desktop or server slot, sold as a card of its own; GPUVALUE_COVERAGE_ADD and GPUVALUE_COVERAGE_REMOVE (comma-separated model names) change the list. Prints the count and the eBay Browse API calls a run makes (1 token + searches x pages per search) against eBay's default limit of 5,000 calls a day.
    """
    from gpuvalue.flows.shopping import coverage as shopping
    from gpuvalue.models.coverage import browse_calls
    from gpuvalue.scrapers.sources.ebay_browse import BROWSE_DAILY_CALL_LIMIT, EbaySettings

    from gpuvalue.warehouse.queries import ranking_rows

    settings = reader_settings(db)
    max_pages = reader_settings(model=EbaySettings).ebay_max_pages
    con = _reader(db)
    try:
        found = shopping(con, settings)
        ranked = ranking_rows(con, top=None, desktop_only=False)  # which covered cards have a price
    finally:
        con.close()
    # A card's place is the one `rank` shows (its place among the cards `rank` shows by default); a card
    # `rank` hides says why, with its place in `rank --all`, the full ranking (`rank` in the JSON).
    from gpuvalue.models.buyer_view import BuyerView, hidden_because, shown_rows

    default_view = BuyerView(min_memory_gb=settings.min_memory_gb)
    rank_of = {r["model"]: r["rank"] for r in ranked}
    shown_of = {r["model"]: r["rank_shown"] for r in shown_rows(ranked, default_view)}
    hidden_of = {r["model"]: hidden_because(r, default_view) for r in ranked}
    if not found.models:
        _fail("the catalog covers no card: run `gpuvalue run` (or `gpuvalue run --replay`) to load the specs first",
              code=1)
    if found.unknown:
        err.print(f"[yellow]warning:[/yellow] not catalog models, ignored: {', '.join(found.unknown)}", highlight=False)
    if as_json:
        _write_json_lines({"model": m.model, "query": m.query, "why": m.why, "rank": rank_of.get(m.model),
                           "rank_shown": shown_of.get(m.model)} for m in found.models)
        return
    day = ranked[0]["as_of"] if ranked else None

    def place(model: str) -> str:
        if model not in rank_of:
            return "no price"
        if model in shown_of:
            return f"#{shown_of[model]}"
        return f"#{rank_of[model]} in rank --all; rank hides it: {hidden_of[model]}"

    _print_table(["model", "search", "covered by", f"place in rank, {day}" if day else "place in rank"],
                 [(m.model, m.query, m.why, place(m.model)) for m in found.models])
    unpriced = sum(1 for m in found.models if m.model not in rank_of)
    if unpriced:  # a card a buyer asks about and does not find in `rank`: here is why
        out.print(f"{unpriced} of them have no price in the ranking{f' of {day}' if day else ''}: no listing matched "
                  "them and no price index lists them, so they are not ranked.", highlight=False)
    calls = browse_calls(len(found.queries), max_pages)
    out.print(f"{len(found.models)} models in {len(found.queries)} searches; a run makes up to {calls} eBay Browse API "
              f"calls (1 token + {len(found.queries)} searches x {max_pages} page(s)), against eBay's "
              f"default limit of {BROWSE_DAILY_CALL_LIMIT:,} Browse API calls a day.", highlight=False)


# The cards a deep-learning buyer looks at; the rest of the catalog (1990s cards, laptop chips,
# 1 GB cards, consoles) is thousands of lines nobody reads. The help below states the same rule.

@app.command()
def perf(
    query: Annotated[Optional[str], typer.Argument(metavar="MODEL", help="Only models whose name contains this (or that the title matcher reads it as, e.g. rtx3090).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every catalog card with a figure in the table, back to the 1990s (a card whose specs are too sparse to estimate has none).")] = False,
    estimate: Annotated[bool, typer.Option("--estimate", help="The spec-based estimate for every card, ignoring measurements.")] = False,
    precision: Annotated[str, typer.Option("--precision", help="fp16 (mixed) or fp32 (tf32 on Ampere+).")] = "fp16",
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines.")] = False,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="Print the leave-one-card-out accuracy table against both baselines.")] = False,
    inference: Annotated[bool, typer.Option("--inference", help="LLM inference speed (llama.cpp tokens/s, one card) instead: not training speed, not ranked.")] = False,
    db: DbOpt = None,
) -> None:
    """Relative training performance per catalog GPU (measured where it exists, else estimated).

    The table shows the cards that matter for deep learning: every card with a measured figure, and catalog cards released in 2016 or later with at least 4 GB in the desktop, workstation or datacenter segment (plus the reference card). --all shows every card with a figure; --json and a MODEL query always cover the whole catalog.
    """
    precision = precision.strip().lower()  # --precision FP32 is fp32, as --use-case LLM is llm
    if precision not in ("fp16", "fp32"):
        _fail("--precision must be fp16 or fp32")
    if inference:
        if estimate or evaluate or precision != "fp16" or all_:
            _fail("--inference shows measured tokens/s of every card that has them; --all, --estimate, --evaluate "
                  "and --precision apply to training figures")
        _perf_inference(db, as_json, query)
        return
    if evaluate:
        from gpuvalue.flows.pipeline import make_client
        from gpuvalue.models.perf.eval import evaluation_report
        from gpuvalue.models.perf.measured import relative_perf_from_lambda
        from gpuvalue.scrapers.sources.lambda_bench import fetch_lambda_tables

        from gpuvalue.warehouse.perf_eval_cache import cached_evaluation

        # The Lambda tables and the harnesses come through the replay archive: reproducible offline.
        settings = _settings(db)
        client = make_client(settings, replay=True)
        try:
            lambda_perf = relative_perf_from_lambda(fetch_lambda_tables(client))
            harnesses = _recorded_harnesses(client)
        finally:
            client.close()

        def compute() -> str:
            # Minutes of nested cross-validation, once per change of inputs: the answer is kept beside the database.
            with _status("cross-validating the spec estimate for perf --evaluate (minutes, once per change of "
                         "its inputs; kept beside the database afterwards)"):
                return evaluation_report(lambda_perf.figures, per_file=lambda_perf.per_file,
                                         per_workload=lambda_perf.per_workload, harnesses=harnesses)

        text, _ = cached_evaluation(settings.db, [lambda_perf.figures, lambda_perf.per_file, lambda_perf.per_workload,
                                                  harnesses], compute)
        out.print(text, highlight=False)
        return
    settings = reader_settings(db)
    con = _reader(db)
    try:
        # With --estimate: the spec estimate for every card; else the figure the ranking uses.
        from gpuvalue.warehouse.queries import perf_reference_present, perf_relative

        args = dict(precision=precision, reference=settings.reference_gpu, estimate=estimate)
        has_reference, has_any = perf_reference_present(con, **args)
        if query is not None:
            rows = perf_relative(con, query=query, **args)
            if len(rows) != 1:  # read as a title: the card it names, when several names (or none) hold it
                from gpuvalue.flows.matcher import catalog_matcher

                found = catalog_matcher(con).match(query).model
                if not rows:
                    rows = perf_relative(con, model=found or "", **args)
                # That card goes first, its sources' table too: `perf "RTX 3090"` led with the faster
                # 3090 Ti, whose name holds the query as well.
                rows.sort(key=lambda r: r["model"] != found)
        else:
            rows = perf_relative(con, everything=all_ or as_json, **args)
        # Each figure's date (of its benchmark table, or of the estimate's specs) and, for an
        # estimate, its uncertainty: what the README promises of every number.
        cols = ["model", "relative_perf", "80% range", "source", "method", "reference", "precision", "as of", "±"]
    finally:
        con.close()
    if not has_any:
        _fail(f"no {'estimated ' if estimate else ''}{precision} performance figures yet: `gpuvalue run` loads the "
              "benchmarks and estimates every card (`gpuvalue run --replay`, the recorded pages)")
    if has_any and not has_reference:
        _fail(f"the reference GPU {settings.reference_gpu!r} has no {precision} figure; "
              "set GPUVALUE_REFERENCE_GPU to a catalog model name")
    if query is not None and not rows:
        _fail(f"no GPU with a {precision} figure matches {query!r}", code=1)
    if as_json:
        for r in rows:
            r["relative_perf"] = round(r["relative_perf"], 4)
            r["uncertainty"] = round(r["uncertainty"], 3) if r["uncertainty"] is not None else None
            for key in ("perf_low", "perf_high"):
                r[key] = round(r[key], 4) if r[key] is not None else None
        _write_json_lines(rows)  # dates as ISO text, strict JSON, as every --json writes
        return
    from gpuvalue.models.perf.weighted import perf_range_words

    _print_table(cols, [(r["model"], r["relative_perf"], perf_range_words(r),
                         *(r[c] for c in ("source", "method", "reference", "precision")),
                         r["as_of"], f"{r['uncertainty']:.0%}" if r["uncertainty"] is not None else "")
                        for r in rows])
    if query is not None and not estimate:
        _perf_card_sources(db, [r["model"] for r in rows], precision, settings.reference_gpu)


def _recorded_harnesses(client) -> list:
    """The benchmark harnesses' figures, read through ``client``, for the enlarged cross-validation
    and the third held-out check of `perf --evaluate`."""
    from gpuvalue.scrapers.harness_sources import fetch_harness_figures, harness_inputs

    return harness_inputs(fetch_harness_figures(client))


# A MODEL query that matches more cards than this lists their figures only, not every source's.
PERF_SOURCES_MAX_CARDS = 5


def _perf_card_sources(db, models: list[str], precision: str, reference: str) -> None:
    """Under `gpuvalue perf MODEL`: every source's figure of each matched card (the ranked one first,
    its method saying how it was made) and the harness runs that give the card no figure, with why."""
    from gpuvalue.models.perf.weighted import perf_range_words
    from gpuvalue.warehouse import queries

    if not models or len(models) > PERF_SOURCES_MAX_CARDS:
        return
    con = _reader(db)
    try:
        for model in models:
            figures = queries.perf_card_sources(con, model, precision, reference)
            runs = queries.perf_card_harness_runs(con, model, precision)
            _print_table(["", "source", "relative perf", "80% range", "workloads", "method"], [
                ("ranked" if f["ranked"] else "", perf_source_label({"perf_source": f["source"], "perf_method": f["method"]}),
                 round(f["relative_perf"], 4), perf_range_words(f), f["workloads"], f["method"]) for f in figures
            ], title=f"{model}, {precision}: every figure, relative to {reference}")
            if runs:
                _print_table(["harness", "device as published", "figures", "why no figure"],
                             [(r["harness"], r["device"], r["figures"], r["why"]) for r in runs],
                             title=f"{model}: harness runs that give it no {precision} figure")
    finally:
        con.close()


def _perf_inference(db, as_json: bool, query: str | None = None) -> None:
    """Inference figures come from their own table: they never mix with the training figures above."""
    from gpuvalue.warehouse.sql_files import dicts

    con = _reader(db)
    try:
        rows = dicts(con, "perf_inference_single")
        if query is not None:  # as for training figures: names that hold it, else the card a title names
            held = [r for r in rows if query.casefold() in r["model"].casefold()]
            if not held:
                from gpuvalue.flows.matcher import catalog_matcher

                found = catalog_matcher(con).match(query).model
                held = [r for r in rows if r["model"] == found]
            rows = held
    finally:
        con.close()
    if query is not None and not rows:
        _fail(f"no GPU with an inference figure matches {query!r}", code=1)
    if as_json:
        _write_json_lines(rows)
        return
    if not rows:
        err.print("no inference figures yet: the daily run loads them from the llamacpp source")
        return
    _print_table(["model", "workload", "phase", "tokens/s", "source", "as of"], [tuple(r.values()) for r in rows],
                 title="LLM inference speed, one card, batch 1 (llama.cpp; not training speed, not in the ranking)")


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
    from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database
    from gpuvalue.warehouse.queries import listings_by_condition, listings_stored

    # The stored name, as every output shows it, is accepted too: `--source import:x` is import:x.
    source = source.strip().removeprefix("import:").strip()
    if not source:
        _fail("--source needs a name for the data set, e.g. ebay-sold-2020")
    if not file.is_file():
        _fail(f"no such file: {file}")
    settings = _settings(db)
    name = f"import:{source}"
    from gpuvalue.flows import stages as S
    from gpuvalue.flows.import_stream import check_file, import_batches

    def shown(outcome) -> None:
        status(f"importing {file}: {outcome.read:,} rows read, {outcome.imported:,} loaded, "
               f"{outcome.matched:,} matched")

    def batches():
        handle = stack.enter_context(file.open(encoding="utf-8-sig", newline=""))
        return iter_listing_csv(handle, name, imported_at, url=str(file), batch_rows=listing_csv.DEFAULT_BATCH_ROWS)

    imported_at = datetime.now(timezone.utc)
    with _status(f"reading {file}") as status, contextlib.ExitStack() as stack:
        try:
            # Read through once before the lock: a row refusing the file, however late, stores nothing.
            check_file(batches(), lambda rows: status(f"reading {file}: {rows:,} rows"))
            with RunLock(settings.db, "import"):
                con = open_database(settings.db)
                try:
                    ctx = S.StageContext(con=con, settings=settings, loaded_at=P.utcnow())
                    days = S.ranked_days(con)
                    done = import_batches(ctx, name, batches(), replace=replace, progress=shown)
                    status(f"re-ranking {len(days)} day(s) with the listings from {file}")
                    S.rerank_after(ctx, {}, stages=("rank",), days=days)
                    new = listings_stored(con, name) - done.stored_before
                    conditions = listings_by_condition(con, name)
                finally:
                    con.close()
        except ParseError as exc:
            _fail(str(exc))
        except UnicodeDecodeError as exc:
            _fail(f"{file} is not UTF-8 text (byte {exc.start}: {exc.reason}); nothing was imported")
        except OSError as exc:
            _fail(f"cannot read {file}: {exc.strerror or exc}")
        except WarehouseError as exc:
            _fail(str(exc))
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


@app.command()
def rematch(db: DbOpt = None) -> None:
    """Re-match every stored listing with the current matcher (e.g. after an upgrade), then re-rank."""
    import pyarrow as pa

    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows import stages as S
    from gpuvalue.warehouse import load, queries
    from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database

    settings = _settings(db)
    if not settings.db.exists():
        _fail(f"no database at {settings.db}: run `gpuvalue run` (or `gpuvalue run --replay`) first")
    try:
        with RunLock(settings.db, "rematch"):
            con = open_database(settings.db)
            try:
                matcher = P.catalog_matcher(con)
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
        _fail(str(exc))
    out.print(f"re-matched {len(rows)} listings ({changed} changed model); re-ranked {len(days)} day(s)")


@app.command()
def backup(
    out_dir: Annotated[Path, typer.Option("--out", help="An empty or new folder for the export.")],
    db: DbOpt = None,
) -> None:
    """Export the whole database (DuckDB EXPORT DATABASE, Parquet) to move it across DuckDB versions."""
    from gpuvalue.warehouse.maintenance import backup_database

    settings = _settings(db)
    from gpuvalue.warehouse.db import WarehouseError

    if out_dir.exists() and not out_dir.is_dir():
        _fail(f"{out_dir} is a file: --out names a folder, empty or new, for the backup's files")
    try:
        backup_database(settings.db, out_dir)
    except (OSError, ValueError, WarehouseError) as exc:
        _fail(str(exc))
    out.print(f"backed up {settings.db} to {out_dir}")


@app.command()
def restore(
    from_dir: Annotated[Path, typer.Option("--from", help="A folder written by gpuvalue backup.")],
    db: DbOpt = None,
) -> None:
    """Restore a backup into a new database file (refuses to overwrite an existing one)."""
    from gpuvalue.warehouse.maintenance import restore_database

    settings = _settings(db)
    from gpuvalue.warehouse.db import WarehouseError

    try:
        restore_database(from_dir, settings.db)
    except (OSError, ValueError, WarehouseError) as exc:
        _fail(str(exc))
    out.print(f"restored {from_dir} into {settings.db}")


@app.command()
def recommend(
    budget: Annotated[float, typer.Option("--budget", help="What you can spend, USD.")],
    min_memory: Annotated[Optional[float], typer.Option("--min-memory", help="Minimum memory a card, GB.")] = None,
    use_case: Annotated[Optional[str], typer.Option("--use-case", help="beginner, kaggle, research, cv, nlp or llm.")] = None,
    kwh_price: Annotated[Optional[float], typer.Option("--kwh-price", help="Electricity price per kWh (USD), to add running costs.")] = None,
    hours_per_day: Annotated[Optional[float], typer.Option("--hours-per-day", help="Training hours a day, with --kwh-price.")] = None,
    gpus: Annotated[Optional[int], typer.Option("--gpus", help="Exactly N identical cards a setup (compared with the fastest single card).")] = None,
    max_gpus: Annotated[Optional[int], typer.Option("--max-gpus", help="Setups of 1 to N identical cards (default GPUVALUE_MAX_GPUS, 4; 1 for beginner and kaggle).")] = None,
    platform_cost: Annotated[Optional[float], typer.Option("--platform-cost", help="USD for the machine around the cards (board, CPU, power supply, case), counted once a setup (GPUVALUE_PLATFORM_COST_USD, 0).")] = None,
    extra_gpu_cost: Annotated[Optional[float], typer.Option("--extra-gpu-cost", help="USD each card beyond the first adds to the machine (GPUVALUE_EXTRA_GPU_COST_USD, 0).")] = None,
    include_modules: Annotated[bool, typer.Option("--include-modules", help="Also consider cards a desktop cannot take (SXM/OAM modules).")] = False,
    include_legacy: Annotated[bool, typer.Option("--include-legacy", help="Also consider cards only the legacy PyTorch builds (CUDA 12.6) run.")] = False,
    include_passive: Annotated[bool, typer.Option("--include-passive", help="Also consider passive server cards (they need a fan kit).")] = False,
    hours_per_week: Annotated[Optional[float], typer.Option("--hours-per-week", help="Training hours a week: answers rent or buy instead, with the break-even hours.")] = None,
    vendor: Annotated[Optional[str], typer.Option("--vendor", help="NVIDIA, AMD or Intel: picks of that vendor only (the beginner use case otherwise prefers current CUDA cards).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object: fastest, best_value and cheapest, each with model, gpus, cost_usd, throughput, money_left_usd, assumptions and why.")] = False,
    db: DbOpt = None,
) -> None:
    """What a budget buys for a use case: the fastest setup, the best value and the cheapest setup that meets the need, from the latest ranking.

    A setup is 1 to --max-gpus identical cards (4 by default, GPUVALUE_MAX_GPUS; one for beginner and kaggle), or exactly --gpus N. Its throughput is its training speed relative to the reference card: N cards run at measured scaling where a benchmark measured that card at that count, else at GPUVALUE_MULTI_GPU_EFFICIENCY (90%) per card. Its cost is the cards', plus --platform-cost and --extra-gpu-cost where given. Each answer says what is left of the budget and what it assumed, names the likely cards it could not price, and shows a new card's price beside a used one where new costs at most 15% more.

    Considers the cards `gpuvalue rank` shows by default: run by the default PyTorch wheels, at least 6 GB (--min-memory, GPUVALUE_MIN_MEMORY_GB; a use case's minimum is a floor), fit for a desktop without a fan kit. Recently priced cards are compared with each other; older prices only when none of them fits, with their age.

    With --hours-per-week: whether to buy a used card or rent a cloud one for that much training, and from how many hours a week buying is cheaper.
    """
    from gpuvalue.models.recommend import USE_CASES

    if use_case is not None:
        use_case = use_case.strip().lower()  # --use-case LLM is llm
    if use_case is not None and use_case not in USE_CASES:
        _fail(f"--use-case must be one of {', '.join(USE_CASES)}")
    # Written as `not (ok)` so that nan, which fails every comparison, is refused too.
    if not (math.isfinite(budget) and budget > 0):
        _fail(f"--budget must be a positive number of USD, not {budget:g}")
    if min_memory is not None and not (math.isfinite(min_memory) and min_memory >= 0):
        _fail(f"--min-memory must be a number of GB, 0 or more, not {min_memory:g}")
    if kwh_price is not None and not (math.isfinite(kwh_price) and kwh_price >= 0):
        _fail(f"--kwh-price must be 0 or more USD per kWh, not {kwh_price:g}")
    if hours_per_day is not None and not (0 <= hours_per_day <= 24):
        _fail(f"--hours-per-day must be between 0 and 24, not {hours_per_day:g}")
    if gpus is not None and gpus < 1:
        _fail("--gpus must be at least 1")
    if vendor is not None and vendor.strip().lower() not in ("nvidia", "amd", "intel"):
        _fail(f"--vendor must be NVIDIA, AMD or Intel, not {vendor!r}")
    if max_gpus is not None and not 1 <= max_gpus <= 16:
        _fail(f"--max-gpus must be between 1 and 16, not {max_gpus}")
    if gpus is not None and max_gpus is not None:
        _fail("--gpus fixes the number of cards and --max-gpus limits it: give one of them")
    for flag, value in (("--platform-cost", platform_cost), ("--extra-gpu-cost", extra_gpu_cost)):
        if value is not None and not (math.isfinite(value) and value >= 0):
            _fail(f"{flag} must be 0 or more USD, not {value:g}")
    if hours_per_week is not None:
        if vendor is not None:
            _fail("--vendor chooses among cards to buy; leave it out with --hours-per-week")
        if hours_per_day is not None or (gpus is not None and gpus != 1) or max_gpus is not None:
            _fail("--hours-per-week answers rent or buy for one card; leave out --hours-per-day, --gpus and --max-gpus")
        if platform_cost is not None or extra_gpu_cost is not None:
            _fail("--hours-per-week answers rent or buy for one card; leave out --platform-cost and --extra-gpu-cost")
        from gpuvalue.flows.rent_cli import rent_or_buy_command

        # The memory floor `recommend` uses: --min-memory, else GPUVALUE_MIN_MEMORY_GB; a use case's minimum on top.
        preset = USE_CASES[use_case] if use_case else None
        floor = preset.min_memory_gb if preset else None
        base = min_memory if min_memory is not None else reader_settings(db).min_memory_gb
        rent_or_buy_command(budget=budget, hours_per_week=hours_per_week, kwh_price=kwh_price,
                            min_memory=max((m for m in (base, floor) if m is not None), default=None),
                            include_modules=include_modules, include_passive=include_passive,
                            include_legacy=include_legacy, db=db,
                            use_case=use_case, as_json=as_json)
        return
    if (kwh_price is None) != (hours_per_day is None):
        _fail("--kwh-price and --hours-per-day go together")
    from gpuvalue.flows.recommend_cli import budget_answers_command

    budget_answers_command(budget=budget, use_case=use_case, min_memory=min_memory, kwh_price=kwh_price,
                           hours_per_day=hours_per_day, gpus=gpus, max_gpus=max_gpus, platform_cost=platform_cost,
                           extra_gpu_cost=extra_gpu_cost, include_modules=include_modules,
                           include_legacy=include_legacy, include_passive=include_passive, as_json=as_json, vendor=vendor,
                           today=utc_today(), db=db)


@app.command()
def report(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for index.html (created if missing), or the .html file to write.")] = Path("report"),
    top: Annotated[int, typer.Option("--top", help="Rows in the ranking table.")] = 25,
    db: DbOpt = None,
) -> None:
    """Write the buyer's page: one self-contained index.html (no network; open it from disk or serve it as a static site).

    A buyer sets budget, memory, use case, vendor, framework support, hours a week and electricity price (kept in the URL's query, named as recommend's flags: ?budget=600&min_memory=12) and sees recommend's fastest, best-value and cheapest answers, the price-versus-speed frontier, their price histories and rent or buy. The answers are those `recommend --json` prints for the same inputs.
    """
    if top < 1:
        _fail("--top must be at least 1")
    from gpuvalue.models.buyer_view import BuyerView
    from gpuvalue.models.rent_vs_buy import Assumptions
    from gpuvalue.models.answers import recommend_settings
    from gpuvalue.warehouse import buyer_page
    from gpuvalue.warehouse.export_files import ExportError

    settings = reader_settings(db)
    con = _reader(db)
    try:
        with _status("answering every combination of the page's inputs ..."):
            path = buyer_page.write_page(con, out_dir, view=BuyerView(min_memory_gb=settings.min_memory_gb),
                                         assumptions=Assumptions.from_settings(settings),
                                         price_window_days=settings.price_window_days, table_rows=top,
                                         **recommend_settings(settings))
    except (ExportError, OSError) as exc:
        _fail(str(exc))
    finally:
        con.close()
    out.print(f"wrote {path}")


@app.command()
def measure(
    suite: Annotated[str, typer.Option("--suite", help="default (about a minute) or tiny.")] = "default",
    device: Annotated[str, typer.Option("--device", help="cuda, or cpu with --allow-cpu (testing only).")] = "cuda",
    allow_cpu: Annotated[bool, typer.Option("--allow-cpu", help="Permit the CPU backend (for testing the suite).")] = False,
    results: Annotated[Optional[Path], typer.Option("--results", help="Also write the JSON results here.")] = None,
    save: Annotated[bool, typer.Option("--save/--no-save", help="Store the figures in the database as source 'local'.")] = True,
    db: DbOpt = None,
) -> None:
    """Benchmark the local GPU (needs the 'measure' extra, PyTorch) and feed it into the ranking as 'local'."""
    import io

    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows.measure import SUITES, measure_command
    from gpuvalue.models.records import PerfFigure
    from gpuvalue.warehouse import load
    from gpuvalue.warehouse.db import RunLock, open_database

    if suite not in SUITES:  # a bad value, before the estimators are fitted for nothing
        _fail(f"--suite must be {' or '.join(SUITES)}")
    settings = _settings(db)
    estimators, features = None, None
    if settings.db.exists():
        con = _reader(db)
        try:
            estimators, features = P.fitted_estimators(con, note=lambda message: err.print(message, highlight=False))
        finally:
            con.close()
    buf = io.StringIO()
    code = measure_command(results_path=results, suite=suite, device=device, allow_cpu=allow_cpu,
                           estimators=estimators or None, features=features, out=buf)
    sys.stdout.write(buf.getvalue())
    if code != 0:
        raise typer.Exit(code)
    payload = json.loads(buf.getvalue())
    figures = [PerfFigure.model_validate(f) for f in payload.get("figures", [])]
    if save and figures:
        from gpuvalue.warehouse.db import WarehouseError

        try:
            with RunLock(settings.db, "measure"):
                con = open_database(settings.db)
                try:
                    with load.transaction(con):
                        load.replace_perf(con, "local", figures, datetime.now(timezone.utc))
                finally:
                    con.close()
        except WarehouseError as exc:
            _fail(f"measured, but could not store the figures: {exc} (rerun with --results FILE to keep them)")
        err.print(f"stored {len(figures)} local figures for {payload.get('model')}; the next ranking uses them")
