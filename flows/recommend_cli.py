"""`gpuvalue recommend` without --hours-per-week: the fastest setup, the best value and the cheapest.

``read_answers`` reads what the answers need from an open warehouse (the latest ranking, the measured
multi-GPU scaling, the new-card prices and the covered cards without a price) and returns
``models/budget_answers.py``'s answers; --json writes ``answers_json`` of them unchanged, so any other
reader that calls ``read_answers`` shows the same answers.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

import duckdb

from gpuvalue.flows.cli_app import NOTHING_RANKED, fail, open_reader, write_json_lines, out, reader_settings
from gpuvalue.models.budget_answers import AnswerOptions, BudgetAnswers


def answer_options(settings, *, budget: float, use_case: str | None = None, min_memory: float | None = None,
                   kwh_price: float | None = None, hours_per_day: float | None = None, gpus: int | None = None,
                   max_gpus: int | None = None, platform_cost: float | None = None,
                   extra_gpu_cost: float | None = None, include_modules: bool = False, include_legacy: bool = False,
                   include_passive: bool = False, vendor: str | None = None) -> AnswerOptions:
    """The options of an answer: what was asked, and the settings for the rest. Raises ValueError."""
    from gpuvalue.models.buyer_view import BuyerView

    view = BuyerView(min_memory_gb=settings.min_memory_gb, include_legacy=include_legacy,
                     include_passive=include_passive, include_modules=include_modules)
    return AnswerOptions(
        budget_usd=budget, use_case=use_case, min_memory_gb=min_memory, view=view, max_gpus=max_gpus,
        workstation_gpus=settings.max_gpus, gpus=gpus,
        platform_cost_usd=settings.platform_cost_usd if platform_cost is None else platform_cost,
        extra_gpu_cost_usd=settings.extra_gpu_cost_usd if extra_gpu_cost is None else extra_gpu_cost,
        kwh_price=kwh_price, hours_per_day=hours_per_day, ownership_months=settings.holding_months,
        vendor=vendor.strip() if vendor else None,
    )


def read_answers(con: duckdb.DuckDBPyConnection, settings, options: AnswerOptions) -> BudgetAnswers | None:
    """The answers to ``options`` from the warehouse's latest ranking; None when nothing is ranked yet."""
    from gpuvalue.flows.shopping import coverage as shopping
    from gpuvalue.models.budget_answers import budget_answers, memory_floor
    from gpuvalue.models.framework_support import of_vendor
    from gpuvalue.models.multi_gpu import DATA_PARALLEL_SOURCES, ScalingFacts
    from gpuvalue.models.unpriced import likely_unpriced
    from gpuvalue.warehouse.queries import ranking_rows, scaling_efficiency
    from gpuvalue.warehouse.recommend_inputs import new_card_prices, unpriced_catalog

    rows = ranking_rows(con, top=None, desktop_only=False)
    if not rows:
        return None
    precision, reference, day = rows[0]["perf_precision"], rows[0]["reference_gpu"], rows[0]["as_of"]
    measured = scaling_efficiency(con, precision, exclude_sources=DATA_PARALLEL_SOURCES)
    new_prices = new_card_prices(con)
    searches = {m.model: m.query for m in shopping(con, settings).models}
    catalog = unpriced_catalog(con, searches, as_of=day, precision=precision, reference=reference)
    facts = ScalingFacts(measured=measured, assumed_efficiency=settings.multi_gpu_efficiency, precision=precision)
    floor, _ = memory_floor(options)  # the unpriced cards meet the answers' floor
    catalog = of_vendor(catalog, options.vendor)  # --vendor AMD names no unpriced NVIDIA card
    unpriced = likely_unpriced(catalog, rows, searches=searches, view=replace(options.view, min_memory_gb=floor),
                               budget_usd=options.budget_usd, as_of=day, new_prices=new_prices)
    return budget_answers(rows, facts, options, new_prices=new_prices, unpriced=unpriced)


def budget_answers_command(*, as_json: bool, today: date, db: Path | None, **asked) -> None:
    from gpuvalue.models.budget_answers import answers_json
    from gpuvalue.models.budget_text import format_budget_answers
    from gpuvalue.models.price_age import ranking_day_note

    settings = reader_settings(db)
    try:
        options = answer_options(settings, **asked)
    except ValueError as exc:
        fail(str(exc))
    con = open_reader(db)
    try:
        result = read_answers(con, settings, options)
    finally:
        con.close()
    if result is None:
        fail(NOTHING_RANKED)
    if as_json:
        write_json_lines([answers_json(result)])
        return
    if note := ranking_day_note(result.as_of, today):
        out.print(note, soft_wrap=True, highlight=False)
    out.print(format_budget_answers(result), highlight=False, soft_wrap=True)
