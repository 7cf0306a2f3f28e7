"""`gpuvalue recommend`: what a budget buys. With --hours-per-week it answers rent or buy
(flows/cli/rent_cli.py); without it, the fastest setup, the best value and the cheapest.

``read_answers`` reads what the answers need from an open warehouse (the latest ranking, the measured
multi-GPU scaling, the new-card prices and the covered cards without a price) and returns
``models/budget_answers.py``'s answers; --json writes ``answers_json`` of them unchanged, so any other
reader that calls ``read_answers`` shows the same answers.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Optional

import typer

from gpuvalue.flows.cli import cli_app
from gpuvalue.flows.cli.cli_app import NOTHING_RANKED, DbOpt, app, check_vendor, fail, open_reader, out, reader_settings, write_json_lines

# Imported for every command (flows/cli/cli_app.py): what only the answers need is imported where they are made.
if TYPE_CHECKING:
    import duckdb

    from gpuvalue.models.budget_answers import AnswerOptions, BudgetAnswers
    from gpuvalue.models.finetune_memory import FinetuneMemory


@app.command()
def recommend(
    budget: Annotated[float, typer.Option("--budget", help="What you can spend, USD.")],
    min_memory: Annotated[Optional[float], typer.Option("--min-memory", help="Minimum memory a card, GB.")] = None,
    use_case: Annotated[Optional[str], typer.Option("--use-case", help="beginner, kaggle, research, cv, nlp or llm.")] = None,
    kwh_price: Annotated[Optional[float], typer.Option("--kwh-price", help="Electricity price per kWh (USD), to add running costs.")] = None,
    hours_per_day: Annotated[Optional[float], typer.Option("--hours-per-day", help="Training hours a day, with --kwh-price.")] = None,
    gpus: Annotated[Optional[int], typer.Option("--gpus", help="Exactly N identical cards a setup (compared with the fastest single card).")] = None,
    max_gpus: Annotated[Optional[int], typer.Option("--max-gpus", help="Setups of 1 to N identical cards (default GPUVALUE_MAX_GPUS, 4; 1 for beginner and kaggle).")] = None,
    platform_cost: Annotated[Optional[float], typer.Option("--platform-cost", help="Your own USD for the machine around the cards (board, CPU, power supply, case), once a setup, instead of the default by card count (GPUVALUE_PLATFORM_COST_USD).")] = None,
    extra_gpu_cost: Annotated[Optional[float], typer.Option("--extra-gpu-cost", help="With your own machine cost: USD each card beyond the first adds to it (GPUVALUE_EXTRA_GPU_COST_USD).")] = None,
    include_modules: Annotated[bool, typer.Option("--include-modules", help="Also consider cards a desktop cannot take (SXM/OAM modules).")] = False,
    include_legacy: Annotated[bool, typer.Option("--include-legacy", help="Also consider cards only the legacy PyTorch builds (CUDA 12.6) run.")] = False,
    include_passive: Annotated[bool, typer.Option("--include-passive", help="Also consider passive server cards (they need a fan kit).")] = False,
    hours_per_week: Annotated[Optional[float], typer.Option("--hours-per-week", help="Training hours a week: answers rent or buy instead, with the break-even hours.")] = None,
    model_params: Annotated[Optional[str], typer.Option("--model-params", help="Size of a model to fine-tune, such as 8B, 70b, 1.5B or 350M: its memory need is a floor (with --method).")] = None,
    method: Annotated[Optional[str], typer.Option("--method", help="How it is fine-tuned: full, lora or qlora (with --model-params).")] = None,
    vendor: Annotated[Optional[str], typer.Option("--vendor", help="NVIDIA, AMD or Intel: picks of that vendor only, including cards its stack runs unofficially (with their caveat).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object: fastest, best_value and cheapest, each with model, gpus, cost_usd, throughput, money_left_usd, assumptions and why.")] = False,
    db: DbOpt = None,
) -> None:
    """What a budget buys for a use case: the fastest setup, the best value and the cheapest setup that meets the need, from the latest ranking.

    A setup is 1 to --max-gpus identical cards (4 by default, GPUVALUE_MAX_GPUS; one for beginner and kaggle), or exactly --gpus N, and a build: the machine around them counted by card count (one card in your desktop, $0; two: GPUVALUE_PLATFORM_TWO_GPUS_USD; three or four: a workstation, GPUVALUE_PLATFORM_WORKSTATION_USD; or --platform-cost and --extra-gpu-cost), its power (cards and machine) within GPUVALUE_POWER_LIMIT_W (one 1,600 W supply on one 120 V 15 A circuit, 1,440 W; cards power-limited where needed, said), its cards fitting the slots (or a riser build, said). Its throughput is its training speed relative to the reference card: N cards run at measured scaling where a benchmark measured that card at that count, else at the median of its class of card. Each answer says what is left of the budget and what it assumed, names the likely cards it could not price, and shows a new card's price beside a used one where new costs at most 15% more.

    Considers the cards `gpuvalue rank` shows by default whose stack is supported on Linux (--vendor: that vendor's cards that run): at least 6 GB (--min-memory, GPUVALUE_MIN_MEMORY_GB; a use case's minimum is a floor: 24 GB for research and llm, 12 GB for kaggle, cv and nlp, 8 GB and an Ampere or newer NVIDIA card for beginner), fit for a desktop without a fan kit. Every priced card competes whatever its price's age; an old price says to verify it.

    With --hours-per-week: whether to buy a used card or rent a cloud one for that much training, and from how many hours a week buying is cheaper.
    """
    from gpuvalue.models.recommend import USE_CASES

    if use_case is not None:
        use_case = use_case.strip().lower()  # --use-case LLM is llm
    if use_case is not None and use_case not in USE_CASES:
        fail(f"--use-case must be one of {', '.join(USE_CASES)}")
    # Written as `not (ok)` so that nan, which fails every comparison, is refused too.
    if not (math.isfinite(budget) and budget > 0):
        fail(f"--budget must be a positive number of USD, not {budget:g}")
    if min_memory is not None and not (math.isfinite(min_memory) and min_memory >= 0):
        fail(f"--min-memory must be a number of GB, 0 or more, not {min_memory:g}")
    if kwh_price is not None and not (math.isfinite(kwh_price) and kwh_price >= 0):
        fail(f"--kwh-price must be 0 or more USD per kWh, not {kwh_price:g}")
    if hours_per_day is not None and not (0 <= hours_per_day <= 24):
        fail(f"--hours-per-day must be between 0 and 24, not {hours_per_day:g}")
    if gpus is not None and gpus < 1:
        fail("--gpus must be at least 1")
    check_vendor(vendor)
    from gpuvalue.models.finetune_memory import finetune_floor

    try:
        finetune = finetune_floor(model_params, method)
    except ValueError as exc:
        fail(str(exc))
    if max_gpus is not None and not 1 <= max_gpus <= 16:
        fail(f"--max-gpus must be between 1 and 16, not {max_gpus}")
    if gpus is not None and max_gpus is not None:
        fail("--gpus fixes the number of cards and --max-gpus limits it: give one of them")
    for flag, value in (("--platform-cost", platform_cost), ("--extra-gpu-cost", extra_gpu_cost)):
        if value is not None and not (math.isfinite(value) and value >= 0):
            fail(f"{flag} must be 0 or more USD, not {value:g}")
    if hours_per_week is not None:
        if vendor is not None:
            fail("--vendor chooses among cards to buy; leave it out with --hours-per-week")
        if hours_per_day is not None or (gpus is not None and gpus != 1) or max_gpus is not None:
            fail("--hours-per-week answers rent or buy for one card; leave out --hours-per-day, --gpus and --max-gpus")
        if extra_gpu_cost is not None:
            fail("--hours-per-week answers rent or buy for one card; leave out --extra-gpu-cost")
        from gpuvalue.flows.cli.rent_cli import rent_or_buy_command

        # The memory floor `recommend` uses: --min-memory, else GPUVALUE_MIN_MEMORY_GB; a use case's minimum on top.
        preset = USE_CASES[use_case] if use_case else None
        floor = preset.min_memory_gb if preset else None
        base = min_memory if min_memory is not None else reader_settings(db).min_memory_gb
        tuning = finetune.floor_gb if finetune is not None else None
        rent_or_buy_command(budget=budget, hours_per_week=hours_per_week, kwh_price=kwh_price,
                            min_memory=max((m for m in (base, floor, tuning) if m is not None), default=None),
                            finetune=finetune, platform_cost=platform_cost,
                            include_modules=include_modules, include_passive=include_passive,
                            include_legacy=include_legacy, db=db,
                            use_case=use_case, as_json=as_json)
        return
    if (kwh_price is None) != (hours_per_day is None):
        fail("--kwh-price and --hours-per-day go together")
    from gpuvalue.flows.cli.recommend_cli import budget_answers_command

    budget_answers_command(budget=budget, use_case=use_case, min_memory=min_memory, kwh_price=kwh_price,
                           hours_per_day=hours_per_day, gpus=gpus, max_gpus=max_gpus, platform_cost=platform_cost,
                           extra_gpu_cost=extra_gpu_cost, include_modules=include_modules,
                           include_legacy=include_legacy, include_passive=include_passive, as_json=as_json, vendor=vendor,
                           finetune=finetune, today=cli_app.utc_today(), db=db)


def answer_options(settings, *, budget: float, use_case: str | None = None, min_memory: float | None = None,
                   kwh_price: float | None = None, hours_per_day: float | None = None, gpus: int | None = None,
                   max_gpus: int | None = None, platform_cost: float | None = None,
                   extra_gpu_cost: float | None = None, include_modules: bool = False, include_legacy: bool = False,
                   include_passive: bool = False, vendor: str | None = None,
                   finetune: FinetuneMemory | None = None) -> AnswerOptions:
    """The options of an answer: what was asked, and the settings for the rest. Raises ValueError."""
    from gpuvalue.models.budget_answers import AnswerOptions
    from gpuvalue.models.buyer_view import BuyerView

    from gpuvalue.models.answers import build_settings

    view = BuyerView(min_memory_gb=settings.min_memory_gb, include_legacy=include_legacy,
                     include_passive=include_passive, include_modules=include_modules)
    builds = build_settings(settings)
    if platform_cost is not None or extra_gpu_cost is not None:  # the buyer's own machine, as asked
        builds["platform_cost_usd"] = platform_cost if platform_cost is not None else builds["platform_cost_usd"] or 0.0
        builds["extra_gpu_cost_usd"] = extra_gpu_cost if extra_gpu_cost is not None else builds["extra_gpu_cost_usd"]
    return AnswerOptions(
        budget_usd=budget, use_case=use_case, min_memory_gb=min_memory, view=view, max_gpus=max_gpus,
        workstation_gpus=settings.max_gpus, gpus=gpus, kwh_price=kwh_price, hours_per_day=hours_per_day,
        ownership_months=settings.holding_months, vendor=vendor.strip() if vendor else None, finetune=finetune,
        **builds,
    )


def read_answers(con: duckdb.DuckDBPyConnection, settings, options: AnswerOptions) -> BudgetAnswers | None:
    """The answers to ``options`` from the warehouse's latest ranking; None when nothing is ranked yet."""
    from gpuvalue.flows.shopping import coverage as shopping
    from gpuvalue.models.budget_answers import budget_answers, least_floor
    from gpuvalue.models.framework_support import of_vendor
    from gpuvalue.models.unpriced import likely_unpriced
    from gpuvalue.warehouse.recommend_inputs import candidate_rows, new_card_prices, scaling_facts, unpriced_catalog

    rows = candidate_rows(con)
    if not rows:
        return None
    precision, reference, day = rows[0]["perf_precision"], rows[0]["reference_gpu"], rows[0]["as_of"]
    new_prices = new_card_prices(con)
    searches = {m.model: m.query for m in shopping(con, settings).models}
    catalog: Sequence[Mapping[str, Any]] = unpriced_catalog(con, searches, as_of=day, precision=precision, reference=reference)
    facts = scaling_facts(con, precision, settings.multi_gpu_efficiency)
    floor = least_floor(options)  # the unpriced cards meet the least floor of an allowed setup
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
    con = open_reader(settings)
    try:
        result = read_answers(con, settings, options)
    finally:
        con.close()
    if result is None:
        fail(NOTHING_RANKED)
    if as_json:
        write_json_lines([answers_json(result)])
        return
    if result.as_of is not None and (note := ranking_day_note(result.as_of, today)):
        out.print(note, soft_wrap=True, highlight=False)
    out.print(format_budget_answers(result), highlight=False, soft_wrap=True)
