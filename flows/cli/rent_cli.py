"""`gpuvalue rent` (the rental ranking) and `gpuvalue recommend --hours-per-week` (rent or buy).

Both read the warehouse only: the rental ranking of the newest rental date (``rent_ranking_latest``)
and, for the answer, the latest used ranking beside it; the arithmetic is ``models/rent_vs_buy.py``'s.
"""

from __future__ import annotations

import json
import math
from datetime import date
from pathlib import Path
from collections.abc import Mapping
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from gpuvalue.flows.cli import cli_app
from gpuvalue.flows.cli.cli_app import (
    DbOpt, fail, jsonable, print_table, open_reader, write_json_lines, app, out, reader_settings,
)

if TYPE_CHECKING:
    from gpuvalue.models.finetune_memory import FinetuneMemory

# The columns of each table; a provider's own score, where a rental source declares one, follows "rel. perf".
RENT_HEADERS = ["#", "model", "GB", "$/GPU-h", "provider", "rel. perf", "ref-h per $", "$ per ref-h",
                "median $/GPU-h", "spot $/GPU-h", "spot provider", "providers", "price as of", "age"]
SPOT_HEADERS = ["#", "model", "GB", "spot $/GPU-h", "spot provider", "rel. perf", "ref-h per $", "$ per ref-h",
                "on-demand $/GPU-h", "providers", "spot as of", "age"]
SCORES_AFTER = "rel. perf"


@app.command()
def rent(
    spot: Annotated[bool, typer.Option("--spot", help="Rank by the cheapest spot (interruptible) price instead.")] = False,
    provider: Annotated[Optional[str], typer.Option("--provider", help="Only this provider's prices, e.g. aws, lambda, runpod.")] = None,
    min_memory: Annotated[Optional[float], typer.Option("--min-memory", help="Minimum GPU memory, GB.")] = None,
    top: Annotated[int, typer.Option("--top", help="How many rows.")] = 20,
    min_reliability: Annotated[Optional[float], typer.Option(
        "--min-reliability", help="Only offers whose host states a reliability at least this high (0 to 1; a marketplace's hosts).")] = None,
    verified: Annotated[bool, typer.Option("--verified", help="Only offers of hosts the marketplace verified (a marketplace's hosts).")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines instead of a table.")] = False,
    db: DbOpt = None,
) -> None:
    """Cloud GPUs ranked by training speed per rented dollar: relative performance per cheapest $/GPU-hour.

    Prices are each provider's newest published ones, as the rental sources publish them (`gpuvalue sources` lists them); "price as of" is the date of the data, not of the run, and "age" its age today; the title and the closing line give the newest date among the prices shown, and say so when the warehouse holds newer ones. A card's cheapest price within 90 days of the newest stands for it; cards priced only longer ago are listed after the others, with their age. ref-h per $: hours of reference-card training a dollar rents. Where a rental source publishes its provider's own speed score, a column headed as the source names it shows it for the card relative to its score for the reference card, for comparison, never as a measurement; a line below the table says what it is. --min-reliability and --verified keep offers whose host states them (a marketplace's hosts); providers that state neither are left out, and a line says which.
    """
    from gpuvalue.warehouse.rental import host_terms_providers, provider_scores, rent_ranking_rows, rental_providers, score_fields

    if top < 1:
        fail("--top must be at least 1")
    if min_reliability is not None and not (math.isfinite(min_reliability) and 0 <= min_reliability <= 1):
        fail(f"--min-reliability must be a fraction from 0 to 1 (0.99 is 99 %), not {min_reliability:g}")
    host_terms = min_reliability is not None or verified
    if min_memory is not None and not (math.isfinite(min_memory) and min_memory >= 0):
        fail(f"--min-memory must be a number of GB, 0 or more, not {min_memory:g}")
    con = open_reader(reader_settings(db))
    try:
        known = rental_providers(con)
        if provider is not None and provider.casefold() not in known:
            fail(f"no rental offers from {provider!r}; known providers: {', '.join(known) or 'none yet'}")
        # More rows than exist is every row; SQL's LIMIT takes at most a 64-bit integer.
        rows = rent_ranking_rows(con, spot=spot, provider=provider, min_memory=min_memory, top=min(top, 10**9),
                                 min_reliability=min_reliability, verified=verified)
        # Without rows: whether the provider has any price of that kind at all, which the filters cannot change.
        unfiltered = rows or provider is None or bool(rent_ranking_rows(con, spot=spot, provider=provider, top=1))
        stating, silent = host_terms_providers(con) if host_terms else ([], [])
        declared = provider_scores(con) if rows else []
    finally:
        con.close()
    # Numbered by their place among the rows shown, as `rank` numbers its cards (--min-memory 24 showed
    # 3, 5, 7, ...); `rank` and `spot_rank` keep the place in the whole rental ranking.
    for position, row in enumerate(rows, start=1):
        row["rank_shown"] = position
    if as_json:
        write_json_lines(rows)
        return
    if not known:
        out.print("No rental prices yet: a run with the rental sources loads them (`gpuvalue sources` lists them).")
        return
    kind, tier, age, dated = ("spot", "spot_tier", "spot_age_days", "spot_as_of") if spot else \
        ("on-demand", "price_tier", "price_age_days", "price_as_of")
    terms = [w for w in (f"reliability {min_reliability:g} or more" if min_reliability is not None else "",
                         "verified hosts" if verified else "") if w]
    terms_line = (f"Host terms ({', '.join(terms)}): only offers whose host states them count "
                  f"({', '.join(stating) or 'no provider here states them'}); left out, stating neither: "
                  f"{', '.join(silent) or 'none'}.") if host_terms else ""
    if not rows:
        out.print("No rented GPUs match those filters." if unfiltered else
                  f"{provider} publishes no {kind} prices here" + (": try without --spot." if spot else "."))
        if terms_line:
            out.print(terms_line)
        return
    from gpuvalue.models.buyer_view import support_legend
    from gpuvalue.models.price_age import age_words, split_tiers, tier_title
    from gpuvalue.warehouse.rental import RENT_COMPARABLE_DAYS

    reference = rows[0]["reference_gpu"]
    today = cli_app.utc_today()

    def age_today(row: Mapping[str, Any]) -> str:
        """A price's age is how old it is now: on the rental date, the newest price read "0 d" at 21 months."""
        day = row.get(dated)
        return age_words((today - day).days) if isinstance(day, date) else age_words(row.get(age))

    filtered = provider is not None or min_memory is not None or host_terms
    where = f" on {provider.casefold()}" if provider else ""
    if host_terms:
        where += " from hosts meeting " + " and ".join(terms)
    # The dates of the rows shown, not the warehouse's newest: a filter that keeps only one marketplace's
    # prices of 2024-11-05 must not read as "prices of 2025-06-21" (another provider's newest).
    shown_newest = newest_shown(rows)
    title = (f"{'Spot' if spot else 'On-demand'} rental: speed per $/GPU-hour{where} (relative to {reference}), "
             f"prices of {shown_newest or rows[0]['as_of']} and before")
    tiers = split_tiers(rows, tier)
    # A provider's own score gets a column where it scores some card shown: no empty column.
    shown_scores = [d for d in declared if any(r.get(score_fields(d)[1]) is not None for r in rows)]
    only_recent = all(name == "recent" for name, _ in tiers)
    for name, part in tiers:  # older prices say so, even when the filters leave no recent one beside them
        heading = title if only_recent else f"{title}\n{tier_title(name, part, RENT_COMPARABLE_DAYS, dated)}"
        table: list[tuple[Any, ...]]
        if spot:
            table = [(r["rank_shown"], _name(r), r["memory_gb"], r["spot_usd_per_gpu_hour"], r["spot_provider"],
                      r["relative_perf"], r["spot_perf_per_usd_hour"], r["spot_usd_per_reference_hour"],
                      r["usd_per_gpu_hour"], r["providers"], r["spot_as_of"], age_today(r)) for r in part]
        else:
            table = [(r["rank_shown"], _name(r), r["memory_gb"], r["usd_per_gpu_hour"], r["provider"], r["relative_perf"],
                      r["perf_per_usd_hour"], r["usd_per_reference_hour"], r["median_usd_per_gpu_hour"],
                      r["spot_usd_per_gpu_hour"], r["spot_provider"], r["provider_count"], r["price_as_of"],
                      age_today(r)) for r in part]
        headers = SPOT_HEADERS if spot else RENT_HEADERS
        cut = headers.index(SCORES_AFTER) + 1
        headers = [*headers[:cut], *(d["header"] for d in shown_scores), *headers[cut:]]
        table = [(*row[:cut], *(r[score_fields(d)[1]] for d in shown_scores), *row[cut:]) for row, r in zip(table, part)]
        print_table(headers, table, title=heading)
    for line in support_legend(rows):  # the marks `rank` uses
        out.print(line)
    for d in shown_scores:
        _, relative, as_of = score_fields(d)
        scored = [r[as_of] for r in rows if r.get(relative) is not None]
        out.print(f"{d['header']}: {d['meaning']} (the median of its offers of {max(scored)}), relative to its score "
                  f"for {reference}: {d['caveat']}, shown beside gpuvalue's figure, never used as a measurement.")
    if terms_line:
        out.print(terms_line)
    if not only_recent:
        out.print(f"Older {kind} prices (a provider's newest published more than {RENT_COMPARABLE_DAYS} days before the "
                  "newest one) rank after every recent one and are compared only with each other.")
    newest = shown_newest or rows[0]["as_of"]
    if isinstance(newest, date) and newest < today:  # the rental date is the newest price's, not the run's
        out.print(f"The newest rental prices shown are of {newest}, {age_words((today - newest).days)} before today "
                  f"({today}); 'age' is each price's age today.")
    held = rows[0]["as_of"]
    if isinstance(held, date) and isinstance(newest, date) and held > newest:
        out.print(f"The warehouse holds newer rental prices, up to {held}, that no row here shows"
                  f"{' (other filters may show them)' if filtered else ''}.")


def newest_shown(rows: list[dict]) -> date | None:
    """The newest date of a price the rows show: each row's on-demand price (price_as_of) and its spot
    price (spot_as_of), where it has one. None without a dated price."""
    days = [row[dated] for row in rows for price, dated in (("usd_per_gpu_hour", "price_as_of"),
                                                             ("spot_usd_per_gpu_hour", "spot_as_of"))
            if row.get(price) is not None and isinstance(row.get(dated), date)]
    return max(days, default=None)


def _name(row: Mapping[str, Any]) -> str:
    from gpuvalue.models.buyer_view import support_mark

    return row["model"] + support_mark(row)


def rent_or_buy_command(*, budget: float, hours_per_week: float, min_memory: float | None, kwh_price: float | None,
                        include_modules: bool, include_passive: bool = False, include_legacy: bool = False,
                        use_case: str | None = None, db: Path | None, as_json: bool = False,
                        finetune: FinetuneMemory | None = None, platform_cost: float | None = None) -> None:
    """`recommend --budget B --hours-per-week H`: buy the best used card or rent the best cloud card.

    The used cards are those `recommend` considers (the buyer view: at least ``min_memory`` GB, run by
    the default PyTorch builds, no passive card or module unless asked), and the answer says how many it
    left out and why."""
    from gpuvalue.models.rent_vs_buy import Assumptions, format_rent_or_buy
    from gpuvalue.warehouse.queries import ranking_rows
    from gpuvalue.warehouse.rental import rent_ranking_rows

    if not (math.isfinite(hours_per_week) and 0 < hours_per_week <= 168):
        fail(f"--hours-per-week must be above 0 and at most 168, not {hours_per_week:g}")
    settings = reader_settings(db)
    try:
        assumptions = Assumptions.from_settings(settings, hours_per_week=hours_per_week, kwh_price_usd=kwh_price)
    except ValueError as exc:
        fail(str(exc))
    con = open_reader(settings)
    try:
        used = ranking_rows(con, top=100000, desktop_only=False)
        rental = rent_ranking_rows(con)
    finally:
        con.close()
    if not used:  # as `recommend` without --hours-per-week says it
        from gpuvalue.flows.cli.cli_app import NOTHING_RANKED

        fail(NOTHING_RANKED)
    if not rental:
        fail("no rental prices in the warehouse: a run with the rental sources loads them (`gpuvalue sources` "
             "lists them)", code=1)
    from gpuvalue.models.answers import rent_or_buy_for
    from gpuvalue.models.matrix_units import has_matrix_units
    from gpuvalue.models.rent_vs_buy import Machine

    if finetune is not None:  # fine-tuning needs tensor or matrix units, as `recommend` requires of a card
        used = [row for row in used if has_matrix_units(row)]

    # --platform-cost, else GPUVALUE_PLATFORM_COST_USD where set, else the platform rule for one card.
    machine = Machine.for_one_card(platform_cost if platform_cost is not None else settings.platform_cost_usd or None)
    answer = rent_or_buy_for(used, rental, budget=budget, min_memory=min_memory, assumptions=assumptions,
                             price_window_days=settings.price_window_days, use_case=use_case,
                             include_legacy=include_legacy, include_passive=include_passive,
                             include_modules=include_modules, machine=machine)
    if finetune is not None:  # the floor it set, with its parts, as `recommend` says it
        answer.notes.insert(0, finetune.words())
    if as_json:
        from gpuvalue.models.answers import rent_or_buy_json

        out.file.write(json.dumps(jsonable(rent_or_buy_json(answer)), allow_nan=False) + "\n")
        return
    out.print(format_rent_or_buy(answer, rental[0]["reference_gpu"]), highlight=False, markup=False, soft_wrap=True)
