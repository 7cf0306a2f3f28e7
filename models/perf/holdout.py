"""The two held-out checks of the spec estimate, on cards no fit or design decision had seen
when each was computed.

Cross-validation reuses, for every design choice made before it ran, the cards it scores. Lambda's
first PyTorch tables measured four cards the other training files lacked (TITAN RTX, Quadro RTX
6000/5000, A100 SXM4 40 GB); its mid-2021 tables four more (RTX 3070, RTX A5000, RTX A4000, A40).
Each check predicted its cards with the estimator fitted without any of the eight
(``HELD_OUT_MODELS``). Since both were published the pipeline's fit uses every measured card
("Fit on every measured card" in docs/performance.md); the checks still fit without the eight, so
their tables stay as published. Protocols: docs/performance.md ("Held-out check", "Second
held-out check").
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

from gpuvalue.models.perf.estimate import Features, as_text
from gpuvalue.models.perf.measured import WorkloadRatio, relative_perf_from_lambda
from gpuvalue.models.perf.scores import ROW_HEADER, EvalTable, format_grid, row_cells, score_row
from gpuvalue.models.perf.workload import fit_estimator
from gpuvalue.models.records import PerfFigure, Precision
from gpuvalue.models.lambda_tables import parse_lambda_rows

_REPO = "lambdal/deeplearning-benchmark"


def _copies(stem: str) -> dict[str, str]:
    return {p: f"lambda_pytorch_{stem}_train_throughput_{p}.csv" for p in ("fp16", "fp32")}


def _origins(folder: str, commits: Mapping[str, str]) -> dict[str, str]:
    return {p: f"{_REPO}@{commit}:{folder}pytorch-train-throughput-{p}.csv" for p, commit in commits.items()}


# The checks' cards. Both checks were computed with a fit that saw none of the eight, and are
# recomputed that way, so that their published figures can be reproduced.
FIRST_HELD_OUT: frozenset[str] = frozenset({"TITAN RTX", "Quadro RTX 6000", "Quadro RTX 5000", "A100 SXM4 40 GB"})
FRESH_HELD_OUT: frozenset[str] = frozenset({"GeForce RTX 3070", "RTX A5000", "RTX A4000", "A40 PCIe"})
HELD_OUT_MODELS: frozenset[str] = FIRST_HELD_OUT | FRESH_HELD_OUT

HOLDOUT_KEY = "lambda-pytorch-v1-holdout"
HOLDOUT_FILES = _copies("v1")
HOLDOUT_ORIGIN = _origins("", {"fp16": "000bc82d31cbad9fc52fa3c1dadce9a4034790f9",
                               "fp32": "84fd0478d071ef3f572c2024ab71f6baee4fd839"})
FRESH_KEY = "lambda-pytorch-2021mid-holdout"
FRESH_FILES = _copies("2021mid")
FRESH_ORIGIN = _origins("pytorch/", {"fp16": "b177e19c7405fd9b1d562363f53538081972973c",
                                     "fp32": "71b30158fb0b46ff392ab7157d2035823dfc6a30"})
# A workload ratio this many times away from the card's median ratio is a broken cell (the
# second check's protocol; the RTX A4000's fp16 WaveGlow is 25x below its other ratios).
BROKEN_CELL_FACTOR = 4.0
# The pipeline's procedure, fitted as when the checks were computed: without the eight cards.
# (Published tables before "Fit on every measured card" call these rows "shipped estimator, fitted
# on the training cards" and "shipped estimator anchored to measured siblings".)
SHIPPED = "shipped procedure, fitted without the held-out cards"
ANCHORED = "the same, anchored to measured siblings"
BANDWIDTH_ONLY = "bandwidth only"
FP32_ONLY = "fp32 TFLOPS only"


@dataclass(frozen=True)
class HoldoutSet:
    """One held-out check: its tables (shipped in models/data), its cards, and whether broken
    cells are dropped from the measured values (fixed in its protocol before computing)."""

    key: str
    files: Mapping[str, str]
    origin: Mapping[str, str]
    cards: frozenset[str]
    drop_broken_cells: bool
    title: str


FIRST = HoldoutSet(HOLDOUT_KEY, HOLDOUT_FILES, HOLDOUT_ORIGIN, FIRST_HELD_OUT, False,
                   "Held-out check: Lambda's first PyTorch tables, four cards predicted by a fit without the eight "
                   'held-out cards, as when it was computed (docs/performance-log.md, "Held-out check")')
FRESH = HoldoutSet(FRESH_KEY, FRESH_FILES, FRESH_ORIGIN, FRESH_HELD_OUT, True,
                   "Second held-out check: four cards from Lambda's mid-2021 PyTorch tables that nothing had seen, "
                   'predicted by the same fit (docs/performance-log.md, "Second held-out check")')
HOLDOUT_SETS = (FIRST, FRESH)


def holdout_figures(precision: Precision, reference: str, which: HoldoutSet = FIRST) -> list[PerfFigure]:
    """Every single-GPU card's figure in a held-out file, relative to ``reference`` there."""
    body = resources.files("gpuvalue.models").joinpath("data", which.files[precision]).read_bytes()
    rows = parse_lambda_rows(body, which.origin[precision])
    result = relative_perf_from_lambda([(f"{which.key}-{precision}", precision, rows)], reference)
    if not which.drop_broken_cells:
        return result.figures
    ratios: dict[str, list[float]] = {}
    for r in result.per_workload:
        ratios.setdefault(r.model, []).append(r.ratio)
    return [fig.model_copy(update=without_broken_cells(ratios[fig.model])) if fig.model in ratios else fig
            for fig in result.figures]


def without_broken_cells(ratios: Sequence[float]) -> dict[str, float | int]:
    """The geometric mean of a card's workload ratios without the ones more than
    ``BROKEN_CELL_FACTOR`` times away from their median, and how many were kept."""
    middle = statistics.median(ratios)
    kept = [r for r in ratios if 1 / BROKEN_CELL_FACTOR <= r / middle <= BROKEN_CELL_FACTOR]
    return {"relative_perf": math.exp(statistics.fmean(math.log(r) for r in kept)), "workloads": len(kept)}


def evaluate_holdout(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    per_workload: Sequence[WorkloadRatio] = (),
    which: HoldoutSet = FIRST,
) -> EvalTable:
    """The estimator fitted as the pipeline fits it but without any held-out check's card
    (as when the checks were computed), against one check's cards, beside the anchored variant
    and the two naive rules."""
    training = [f for f in measured if f.precision == precision and f.model not in HELD_OUT_MODELS]
    ratios = [r for r in per_workload if r.model not in HELD_OUT_MODELS]
    estimator = fit_estimator(training, features, precision, per_workload=ratios, cross_validate=False)
    reference = estimator.reference
    seen = set(estimator.trained_models)
    ref = features[reference]
    headline: dict[str, PerfFigure] = {}
    for fig in training:
        headline.setdefault(fig.model, fig)
    siblings = [(fig.relative_perf, features[m]) for m, fig in headline.items()
                if m in estimator.trained_models and m in features]
    shipped: list[tuple[str, float, float]] = []
    anchored: list[tuple[str, float, Any]] = []
    bandwidth: list[tuple[str, float, float]] = []
    fp32: list[tuple[str, float, float]] = []
    for fig in holdout_figures(precision, reference, which):
        f = features.get(fig.model)
        if fig.model in seen or fig.model not in which.cards or f is None or as_text(f.get("segment")) == "mobile":
            continue
        predicted = estimator.predict(f)
        if predicted is None:
            continue
        shipped.append((fig.model, fig.relative_perf, predicted))
        if hasattr(estimator, "predict_anchored"):
            anchored.append((fig.model, fig.relative_perf, estimator.predict_anchored(f, siblings)))
        bandwidth.append((fig.model, fig.relative_perf, float(f["bandwidth_gb_s"]) / float(ref["bandwidth_gb_s"])))
        fp32.append((fig.model, fig.relative_perf, float(f["fp32_tflops"]) / float(ref["fp32_tflops"])))
    if not shipped:
        raise ValueError(f"no held-out {precision} card has the specs the estimate needs")
    predictions = {SHIPPED: shipped, **({ANCHORED: anchored} if anchored else {}),
                   BANDWIDTH_ONLY: bandwidth, FP32_ONLY: fp32}
    return EvalTable(
        precision=precision,
        reference=reference,
        rows=[score_row(method, precision, preds) for method, preds in predictions.items()],
        predictions=predictions,
    )


def format_holdout_tables(tables: Sequence[EvalTable], markdown: bool = False) -> str:
    """The summary rows, then every card: what was measured and what each method predicted."""
    summary = format_grid(ROW_HEADER, [row_cells(r) for t in tables for r in t.rows], markdown)
    methods = tuple(dict.fromkeys(m for t in tables for m in t.predictions))
    lines = []
    for t in tables:
        by_method = {m: {card: p for card, _, p in t.predictions.get(m, [])} for m in methods}
        first = SHIPPED if SHIPPED in t.predictions else next(iter(t.predictions))
        for card, measured, _ in t.predictions[first]:
            cells = [f"{by_method[m][card]:.3f}" if card in by_method[m] else "-" for m in methods]
            lines.append([t.precision, card, f"{measured:.3f}", *cells])
    cards = format_grid(["precision", "card", "measured", *methods], lines, markdown)
    return "\n".join([summary, "", cards])


# --- the third check: cards first measured by the benchmark harnesses -------------------------------
# Protocol: docs/performance-log.md, "The next check" and "The next check, applied to these harnesses".

HARNESS_CHECK_TITLE = (
    "Third held-out check: cards first measured by the benchmark harnesses (combined figures, broken cells "
    "dropped at 4x), predicted by the shipped procedure fitted on the 24 Lambda cards (docs/performance-log.md, "
    '"The next check, applied to these harnesses")')
SHIPPED_ON_LAMBDA = "shipped procedure (roofline v3), fitted on the Lambda cards"
V2_ON_LAMBDA = "roofline v2, form chosen by leave-one-card-out on the Lambda cards"


@dataclass(frozen=True)
class HarnessCheck:
    """The third check's measured values: per card and precision the figure the ranking would use
    (combined where several harnesses measured it), how it was reached, and the harnesses' usual
    spread (log) on the same combination."""

    figures: Mapping[tuple[str, str], PerfFigure]
    chained: frozenset[tuple[str, str]]  # cards whose figure rests only on chained harnesses
    spread: Mapping[str, float | None]


def harness_check(harnesses: Sequence[object], lambda_result: object, reference: str) -> HarnessCheck:
    """The check's measured values from the harnesses (``HarnessInput``) and Lambda's figures (the
    known links), for every card no Lambda file measures."""
    from gpuvalue.models.perf.combine import combine_measured

    lambda_models = {f.model for f in [*lambda_result.figures, *lambda_result.per_file]}  # type: ignore[attr-defined]
    # The check was fixed over the harnesses before it; a harness added since stays out of it.
    harnesses = [h for h in harnesses if getattr(h, "third_check", True)]
    result = combine_measured(harnesses, lambda_result.figures, lambda_result.per_workload,  # type: ignore[arg-type,attr-defined]
                              reference=reference, cell_factor=BROKEN_CELL_FACTOR)
    figures = {key: fig for key, fig in result.ranking_figures().items() if key[0] not in lambda_models}
    chained = frozenset(key for key in figures if not any(s.direct for s in result.sources.get(key, [])))
    return HarnessCheck(figures=figures, chained=chained, spread=result.spread)


def evaluate_harness_check(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    check: HarnessCheck,
    per_workload: Sequence[WorkloadRatio] = (),
) -> EvalTable:
    """The shipped procedure and roofline v2, each fitted on every Lambda card (form chosen by
    leave-one-card-out on them), and the two naive rules, against the check's cards."""
    training = [f for f in measured if f.precision == precision]
    shipped = fit_estimator(training, features, precision, per_workload=per_workload, cross_validate=False)
    v2 = fit_estimator(training, features, precision, cross_validate=False)
    ref = features[shipped.reference]
    rows: dict[str, list[tuple[str, float, float]]] = {SHIPPED_ON_LAMBDA: [], V2_ON_LAMBDA: [], BANDWIDTH_ONLY: [],
                                                       FP32_ONLY: []}
    for (model, p), fig in sorted(check.figures.items()):
        f = features.get(model)
        if p != precision or f is None or as_text(f.get("segment")) == "mobile":
            continue
        a, b = shipped.predict(f), v2.predict(f)
        if a is None or b is None or not f.get("bandwidth_gb_s") or not f.get("fp32_tflops"):
            continue
        rows[SHIPPED_ON_LAMBDA].append((model, fig.relative_perf, a))
        rows[V2_ON_LAMBDA].append((model, fig.relative_perf, b))
        rows[BANDWIDTH_ONLY].append((model, fig.relative_perf, float(f["bandwidth_gb_s"]) / float(ref["bandwidth_gb_s"])))
        rows[FP32_ONLY].append((model, fig.relative_perf, float(f["fp32_tflops"]) / float(ref["fp32_tflops"])))
    if not rows[SHIPPED_ON_LAMBDA]:
        raise ValueError(f"no {precision} card of the third check has the specs the estimate needs")
    return EvalTable(precision=precision, reference=shipped.reference,
                     rows=[score_row(method, precision, preds) for method, preds in rows.items()], predictions=rows)


def format_harness_check(tables: Sequence[EvalTable], check: HarnessCheck, markdown: bool = False) -> str:
    """The summary rows, every card (chained ones marked), and the harnesses' usual spread."""
    text = format_holdout_tables(tables, markdown=markdown)
    chained = sorted(f"{m} ({p})" for m, p in check.chained
                     if any(m == card for t in tables if t.precision == p for card, _, _ in t.predictions[SHIPPED_ON_LAMBDA]))
    spread = ", ".join(f"{p} {math.exp(s):.2f}x" if s is not None else f"{p} -" for p, s in check.spread.items())
    notes = [f"Usual spread between harnesses on shared cards (median ratio of two sources' figures): {spread}."]
    if chained:
        notes.append("Measured only through chained harnesses: " + ", ".join(chained) + ".")
    return "\n".join([text, "", *notes])
