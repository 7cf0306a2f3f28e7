"""`gpuvalue perf`: each card's relative training performance (measured, else estimated), every
source's figure of a card, the LLM inference figures, and the estimate's cross-validated accuracy."""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from gpuvalue.flows.cli.cli_app import (
    DbOpt, app, err, fail, full_settings, live_status, open_reader, out, print_table, reader_settings, write_json_lines,
)
from gpuvalue.models.perf.label import perf_source_label


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
        fail("--precision must be fp16 or fp32")
    if inference:
        if estimate or evaluate or precision != "fp16" or all_:
            fail("--inference shows measured tokens/s of every card that has them; --all, --estimate, --evaluate "
                  "and --precision apply to training figures")
        _perf_inference(db, as_json, query)
        return
    if evaluate:
        from gpuvalue.flows.pipeline import make_client
        from gpuvalue.models.perf.eval import evaluation_report
        from gpuvalue.models.perf.measured import relative_perf_from_lambda
        from gpuvalue.scrapers.sources.lambda_bench import fetch_lambda_tables

        from gpuvalue.warehouse.perf_eval_cache import cached_evaluation

        from gpuvalue.scrapers.sources.spec_corrections import corrections_by_model

        corrections = corrections_by_model()  # the specs the pipeline fits on: the catalog applies them too
        # The Lambda tables and the harnesses come through the replay archive: reproducible offline.
        settings = full_settings(db)
        client = make_client(settings, replay=True)
        try:
            lambda_perf = relative_perf_from_lambda(fetch_lambda_tables(client))
            harnesses = recorded_harnesses(client)
        finally:
            client.close()

        def compute() -> str:
            # Minutes of nested cross-validation, once per change of inputs: the answer is kept beside the database.
            with live_status("cross-validating the spec estimate for perf --evaluate (minutes, once per change of "
                         "its inputs; kept beside the database afterwards)"):
                return evaluation_report(lambda_perf.figures, per_file=lambda_perf.per_file,
                                         per_workload=lambda_perf.per_workload, harnesses=harnesses,
                                         corrections=corrections)

        text, _ = cached_evaluation(settings.db, [lambda_perf.figures, lambda_perf.per_file, lambda_perf.per_workload,
                                                  harnesses, corrections], compute)
        out.print(text, highlight=False)
        return
    settings = reader_settings(db)
    con = open_reader(settings)
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
        # Under a MODEL's table, every source's figure of each card it names: read on this connection.
        card_sources = (_card_sources(con, [r["model"] for r in rows], precision, settings.reference_gpu)
                        if query is not None and not estimate and not as_json and has_any and has_reference else [])
    finally:
        con.close()
    if not has_any:
        fail(f"no {'estimated ' if estimate else ''}{precision} performance figures yet: `gpuvalue run` loads the "
              "benchmarks and estimates every card (`gpuvalue run --replay`, the recorded pages)")
    if has_any and not has_reference:
        fail(f"the reference GPU {settings.reference_gpu!r} has no {precision} figure; "
              "set GPUVALUE_REFERENCE_GPU to a catalog model name")
    if query is not None and not rows:
        fail(f"no GPU with a {precision} figure matches {query!r}", code=1)
    if as_json:
        for r in rows:
            r["relative_perf"] = round(r["relative_perf"], 4)
            r["uncertainty"] = round(r["uncertainty"], 3) if r["uncertainty"] is not None else None
            for key in ("perf_low", "perf_high"):
                r[key] = round(r[key], 4) if r[key] is not None else None
        write_json_lines(rows)  # dates as ISO text, strict JSON, as every --json writes
        return
    from gpuvalue.models.perf.weighted import perf_range_words, spread

    print_table(cols, [(r["model"], r["relative_perf"], perf_range_words(r),
                         *(r[c] for c in ("source", "method", "reference", "precision")),
                         r["as_of"], _plus_minus(spread(r), r["uncertainty"]))
                        for r in rows])
    _print_card_sources(card_sources, precision, settings.reference_gpu)


def _plus_minus(interval_spread: float | None, uncertainty: float | None) -> str:
    """The "±" cell: the 80% interval's wider side, as `rank` shows it, so it never contradicts the
    range beside it; a figure without an interval shows its own stated uncertainty."""
    value = interval_spread if interval_spread is not None else uncertainty
    return "" if value is None else f"{value:.0%}"


def recorded_harnesses(client) -> list:
    """The benchmark harnesses' figures, read through ``client``, for the enlarged cross-validation
    and the third held-out check of `perf --evaluate`."""
    from gpuvalue.flows.enrich import harness_figures
    from gpuvalue.scrapers.harness_sources import fetch_harness_figures, harness_inputs

    fetched = fetch_harness_figures(client)  # as published: the enrich step resolves their devices
    return harness_inputs({name: harness_figures(name, figures) for name, figures in fetched.items()})


# A MODEL query that matches more cards than this lists their figures only, not every source's.
PERF_SOURCES_MAX_CARDS = 5


def _card_sources(con, models: list[str], precision: str, reference: str) -> list[tuple[str, list, list]]:
    """Each matched card's figures from every source and the harness runs that give it none (none
    when the query matched more than ``PERF_SOURCES_MAX_CARDS`` cards)."""
    from gpuvalue.warehouse import queries

    if len(models) > PERF_SOURCES_MAX_CARDS:
        return []
    return [(model, queries.perf_card_sources(con, model, precision, reference),
             queries.perf_card_harness_runs(con, model, precision)) for model in models]


def _print_card_sources(cards: list[tuple[str, list, list]], precision: str, reference: str) -> None:
    """Under `gpuvalue perf MODEL`: every source's figure of each matched card (the ranked one first,
    its method saying how it was made) and the harness runs that give the card no figure, with why."""
    from gpuvalue.models.perf.weighted import perf_range_words

    for model, figures, runs in cards:
        print_table(["", "source", "relative perf", "80% range", "workloads", "method"], [
            ("ranked" if f["ranked"] else "", perf_source_label({"perf_source": f["source"], "perf_method": f["method"]}),
             round(f["relative_perf"], 4), perf_range_words(f), f["workloads"], f["method"]) for f in figures
        ], title=f"{model}, {precision}: every figure, relative to {reference}")
        if runs:
            print_table(["harness", "device as published", "figures", "why no figure"],
                        [(r["harness"], r["device"], r["figures"], r["why"]) for r in runs],
                        title=f"{model}: harness runs that give it no {precision} figure")


def _perf_inference(db, as_json: bool, query: str | None = None) -> None:
    """Inference figures come from their own table: they never mix with the training figures above."""
    from gpuvalue.warehouse.sql_files import dicts

    con = open_reader(reader_settings(db))
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
        fail(f"no GPU with an inference figure matches {query!r}", code=1)
    if as_json:
        write_json_lines(rows)
        return
    if not rows:
        err.print("no inference figures yet: the daily run loads them from the llamacpp source")
        return
    print_table(["model", "workload", "phase", "tokens/s", "source", "as of"], [tuple(r.values()) for r in rows],
                 title="LLM inference speed, one card, batch 1 (llama.cpp; not training speed, not in the ranking)")
