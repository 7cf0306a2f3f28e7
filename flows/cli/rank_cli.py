"""`gpuvalue rank`: the day's performance-per-dollar ranking as a buyer sees it, and the table
`gpuvalue run` prints after a run."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Optional

import typer

from gpuvalue.flows.cli import cli_app
from gpuvalue.flows.cli.cli_app import (
    NOTHING_RANKED, DbOpt, app, check_vendor, fail, memory_format, open_reader, out, parse_date, print_table, reader_settings,
    write_json_lines,
)
from gpuvalue.models.perf.label import is_low_confidence
from gpuvalue.models.speed_evidence import speed_evidence


RANK_HEADERS = ["rank", "model", "GB", "price $", "kind", "n", "q1-q3 $", "price as of", "age", "stale", "rel. perf",
                "perf source", "perf per $1k"]


def _rank_formats(rows: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Each column of the ranking table one way: GB whole (or one decimal), dollars with cents,
    ratios with three decimals."""
    return {"GB": memory_format([r["memory_gb"] for r in rows]), "price $": ",.2f", "perf per $1k": ".3f"}


def print_ranking(rows: list[dict], title: str, *, hidden: str | None = None,
                   comparable_days: int | None = None) -> None:
    """The shown ranking as terminal tables, recently priced cards first and older prices apart: each
    price with its kind, count, quartiles, date and age beside it. ``rank`` is the place among the
    shown cards."""
    from gpuvalue.models.buyer_view import is_not_desktop, is_passive, support_legend, support_mark
    from gpuvalue.models.perf.weighted import adjacent_within_interval, close_runs_words, perf_with_spread
    from gpuvalue.models.price_age import age_words, index_legend, price_date_words, split_tiers, tier_title

    def q(r: Mapping[str, Any]) -> str:
        if r["price_q1"] is None or r["price_q3"] is None:
            return "-"
        return f"{r['price_q1']:,.0f}-{r['price_q3']:,.0f}"

    def name(r: Mapping[str, Any]) -> str:
        return r["model"] + support_mark(r) + (" (passive)" if is_passive(r) else "") + (" (module)" if is_not_desktop(r) else "")

    def source(r: Mapping[str, Any]) -> str:
        evidence = speed_evidence(r)
        return (evidence.short() if evidence else str(r["perf_source"])) + (" *" if is_low_confidence(r) else "")

    def table_rows(part: Sequence[Mapping[str, Any]]) -> list[tuple]:
        return [(r.get("rank_shown", r["rank"]), name(r), r["memory_gb"], r["price_usd"], r["price_kind"], r["price_n"],
                 q(r), price_date_words(r), age_words(r.get("price_age_days")), r["stale"], perf_with_spread(r),
                 source(r), r["perf_per_dollar"]) for r in part]

    tiers = split_tiers(rows)
    only_recent = all(tier == "recent" for tier, _ in tiers)
    close = [pair for _, part in tiers for pair in adjacent_within_interval(part)]
    for tier, part in tiers:  # older prices say so, even when the filters leave no recent one beside them
        heading = title if only_recent else f"{title}\n{tier_title(tier, part, comparable_days)}"
        print_table(RANK_HEADERS, table_rows(part), title=heading, formats=_rank_formats(part))
    legend = index_legend(rows)
    if legend:
        out.print(legend)
    for line in support_legend(rows):
        out.print(line)
    if any(is_passive(r) for r in rows):
        out.print("(passive): a server card without a fan: needs a fan kit in a desktop.")
    if any(is_not_desktop(r) for r in rows):
        out.print("(module): not a desktop card: an SXM/OAM module, laptop or integrated part, which a desktop's "
                  "PCIe slot cannot take.")
    shown = [e for r in rows if (e := speed_evidence(r)) is not None]
    if any(not e.measured and e.benchmarks for e in shown) or any(e.measured and e.benchmark_share < 1 for e in shown):
        out.print("perf source: the benchmark behind a figure; 'measured 68%': benchmarks carry that share of its "
                  "weight, the spec estimate the rest; 'estimate (1 bench, 32%)': the estimate carries most of it, that "
                  "many benchmarks the share shown (`gpuvalue perf MODEL` shows each piece).")
    if any(is_low_confidence(r) for r in rows):
        out.print("* low-confidence estimate (AMD, a family with no measured card, or one the model misses); "
                  "`gpuvalue perf --json` says why.")
    if close:
        out.print(f"within each other's 80% interval, so the evidence cannot order them on performance per dollar: "
                  f"{close_runs_words(close)}; 'rel. perf' gives each figure with its 80% interval's wider half-width "
                  "(its bounds: `rank --json`, perf_low and perf_high).",
                  soft_wrap=True, highlight=False)
    if not only_recent:
        out.print("Older prices rank after every recently priced card and are compared only with each other; "
                  "'age' is each price's age on the ranking's day.")
    if hidden:
        out.print(hidden + ".", highlight=False)


def ranking_title(reference_gpu: str, as_of, replay: bool) -> str:
    """The ranking table's title, as `run` and `rank` print it; a replayed day says so."""
    return (f"Performance per $1000 (relative to {reference_gpu}), as of {as_of}"
            + (" (replay of recorded pages)" if replay else ""))


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
    from gpuvalue.models.buyer_view import BuyerView, hidden_summary, shown_rows
    from gpuvalue.models.price_age import ranking_day_note
    from gpuvalue.warehouse.queries import ranked_days, ranking_rows
    from gpuvalue.warehouse.source_dates import ranking_is_replay

    as_of = parse_date(date_)
    if top is not None and top < 1:
        fail("--top must be at least 1")
    check_vendor(vendor)
    if min_memory is not None and not (math.isfinite(min_memory) and min_memory >= 0):
        fail(f"--min-memory must be a number of GB, 0 or more, not {min_memory:g}")
    if max_price is not None and not (math.isfinite(max_price) and max_price > 0):
        fail(f"--max-price must be a price in USD above 0, not {max_price:g}")
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
    filters: dict[str, Any] = dict(as_of=as_of, max_price=max_price, vendor=vendor, segment=segment, supported_only=supported_only)
    con = open_reader(settings)
    try:
        # The day's rows the filters keep, shown or hidden: the view's rows and the count of the hidden
        # ones from one query (`ranking_rows(view=...)` asked for the same rows again).
        every = ranking_rows(con, top=None, desktop_only=False, **filters)
        rows = shown_rows(every, view)[:top] if top is not None else shown_rows(every, view)
        hidden = hidden_summary(every, view)
        days = ranked_days(con) if not rows else []
        # As the run said when it printed the day: a replay's prices are as old as its recordings.
        replayed = bool(rows) and ranking_is_replay(con, rows[0]["as_of"])
        unknown = _unknown_filter_values(ranking_rows(con, top=None, desktop_only=False, as_of=as_of),
                                         vendor=vendor, segment=segment) if not rows else ""
        unfiltered = every if all(v in (None, False) for v in filters.values()) else None
        unpriced = _unpriced_note(con, settings, rows[0]["as_of"], unfiltered) if rows and not as_json else None
    finally:
        con.close()
    # No row because no ranking, not because of the filters: say which, as `export` does.
    if not rows and not days:
        fail(NOTHING_RANKED)
    if not rows and as_of is not None and as_of not in days:
        fail(f"no ranking for {as_of.isoformat()}: the ranked days run from {days[0].isoformat()} to "
              f"{days[-1].isoformat()} ({len(days)} day{'' if len(days) == 1 else 's'})")
    if as_json:  # each figure says whether benchmarks carry most of it (models/perf/label.py)
        write_json_lines([{**r, **(e.as_dict() if (e := speed_evidence(r)) is not None else {})} for r in rows])
        return
    if not rows:
        out.print("No ranked GPUs match those filters." + (f" ({hidden})" if hidden else "") + unknown,
                  soft_wrap=True)
        return
    if as_of is None and (note := ranking_day_note(rows[0]["as_of"], cli_app.utc_today())):
        out.print(note, soft_wrap=True, highlight=False)  # the latest ranking is not today's: before its table
    print_ranking(rows, title=ranking_title(rows[0]["reference_gpu"], rows[0]["as_of"], replayed),
                   hidden=hidden, comparable_days=settings.price_comparable_days)
    if unpriced:
        out.print(unpriced, soft_wrap=True, highlight=False)


def _unpriced_note(con, settings, day, day_rows: list[dict] | None = None) -> str | None:
    """How many of the cards the run shops for the day's ranking leaves out for want of a price: a
    buyer looking for a GTX 1080 Ti finds nothing in `rank`, and this says where to look.
    ``day_rows``: the day's whole ranking where the caller has read it already."""
    from gpuvalue.flows.shopping import coverage as shopping
    from gpuvalue.warehouse.queries import ranking_rows

    if day_rows is None:
        day_rows = ranking_rows(con, top=None, desktop_only=False, as_of=day)
    ranked = {r["model"] for r in day_rows}
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
