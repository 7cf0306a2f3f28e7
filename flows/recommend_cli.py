"""`gpuvalue recommend` without --hours-per-week: the fastest setup, the best value and the cheapest.

Reads the latest ranking, the measured multi-GPU scaling, the new-card prices and the covered cards
without a price; the answers are ``models/budget_answers.py``'s, and --json writes ``answers_json``
unchanged, so every reader of the answers shows the same ones.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date
from pathlib import Path

from gpuvalue.flows.cli_app import NOTHING_RANKED, _fail, _reader, _settings, _write_json_lines, out


def budget_answers_command(*, budget: float, use_case: str | None, min_memory: float | None,
                           kwh_price: float | None, hours_per_day: float | None, gpus: int | None,
                           max_gpus: int | None, platform_cost: float | None, extra_gpu_cost: float | None,
                           include_modules: bool, include_legacy: bool, include_passive: bool, as_json: bool,
                           today: date, db: Path | None) -> None:
    from gpuvalue.flows.pipeline import coverage as shopping
    from gpuvalue.models.budget_answers import AnswerOptions, answers_json, budget_answers, memory_floor
    from gpuvalue.models.budget_text import format_budget_answers
    from gpuvalue.models.buyer_view import BuyerView
    from gpuvalue.models.multi_gpu import DATA_PARALLEL_SOURCES, ScalingFacts
    from gpuvalue.models.price_age import ranking_day_note
    from gpuvalue.models.unpriced import likely_unpriced
    from gpuvalue.warehouse.queries import ranking_rows, scaling_efficiency
    from gpuvalue.warehouse.recommend_inputs import new_card_prices, unpriced_catalog

    settings = _settings(db)
    view = BuyerView(min_memory_gb=settings.min_memory_gb, include_legacy=include_legacy,
                     include_passive=include_passive, include_modules=include_modules)
    try:
        options = AnswerOptions(
            budget_usd=budget, use_case=use_case, min_memory_gb=min_memory, view=view, max_gpus=max_gpus,
            workstation_gpus=settings.max_gpus, gpus=gpus,
            platform_cost_usd=settings.platform_cost_usd if platform_cost is None else platform_cost,
            extra_gpu_cost_usd=settings.extra_gpu_cost_usd if extra_gpu_cost is None else extra_gpu_cost,
            kwh_price=kwh_price, hours_per_day=hours_per_day, ownership_months=settings.holding_months,
        )
    except ValueError as exc:
        _fail(str(exc))
    con = _reader(db)
    try:
        rows = ranking_rows(con, top=None, desktop_only=False)
        if not rows:
            _fail(NOTHING_RANKED)
        precision, reference, day = rows[0]["perf_precision"], rows[0]["reference_gpu"], rows[0]["as_of"]
        measured = scaling_efficiency(con, precision, exclude_sources=DATA_PARALLEL_SOURCES)
        new_prices = new_card_prices(con)
        covered = shopping(con, settings)
        searches = {m.model: m.query for m in covered.models}
        catalog = unpriced_catalog(con, searches, as_of=day, precision=precision, reference=reference)
    finally:
        con.close()
    facts = ScalingFacts(measured=measured, assumed_efficiency=settings.multi_gpu_efficiency, precision=precision)
    floor, _ = memory_floor(options)  # the unpriced cards meet the answers' floor
    unpriced = likely_unpriced(catalog, rows, searches=searches, view=replace(view, min_memory_gb=floor),
                               budget_usd=budget, as_of=day, new_prices=new_prices)
    result = budget_answers(rows, facts, options, new_prices=new_prices, unpriced=unpriced)
    if as_json:
        _write_json_lines([answers_json(result)])
        return
    if note := ranking_day_note(day, today):
        out.print(note, soft_wrap=True, highlight=False)
    out.print(format_budget_answers(result), highlight=False, soft_wrap=True)
