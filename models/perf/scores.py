"""Scoring predictions of held-out cards against their measured figures, and the plain or
markdown tables the evaluations print (``models/perf/eval.py`` for cross-validation,
``models/perf/holdout.py`` for the held-out checks)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field

from gpuvalue.models.records import Precision


@dataclass(frozen=True)
class EvalRow:
    """One method's error on the held-out cards of one precision."""

    method: str
    precision: Precision
    n: int
    spearman: float
    median_abs_pct_error: float  # 0.06 == 6 %
    max_abs_pct_error: float
    worst_model: str


@dataclass(frozen=True)
class EvalTable:
    """Every method on the same cards, plus the per-card predictions behind the rows."""

    precision: Precision
    reference: str
    rows: list[EvalRow]
    predictions: dict[str, list[tuple[str, float, float]]]  # method -> (model, measured, predicted)
    nested_forms: dict[str, str] = field(default_factory=dict)  # held-out card -> form chosen without it


def _ranks(values: Sequence[float]) -> list[float]:
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(a: Sequence[float], b: Sequence[float]) -> float:
    """Spearman rank correlation (Pearson on ranks, ties averaged)."""
    ra, rb = _ranks(a), _ranks(b)
    ma, mb = statistics.fmean(ra), statistics.fmean(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb, strict=True))
    var = math.sqrt(sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb))
    return cov / var if var else float("nan")


def score_row(method: str, precision: Precision, preds: list[tuple[str, float, float]]) -> EvalRow:
    """One method's row from its (model, measured, predicted) triples."""
    errors = [abs(p / m - 1) for _, m, p in preds]
    worst = max(range(len(preds)), key=lambda i: errors[i])
    return EvalRow(
        method=method,
        precision=precision,
        n=len(preds),
        spearman=round(spearman([m for _, m, _ in preds], [p for _, _, p in preds]), 4),
        median_abs_pct_error=round(statistics.median(errors), 4),
        max_abs_pct_error=round(errors[worst], 4),
        worst_model=preds[worst][0],
    )


def row_cells(r: EvalRow) -> list[str]:
    return [r.precision, r.method, str(r.n), f"{r.spearman:.3f}", f"{100 * r.median_abs_pct_error:.1f}%",
            f"{100 * r.max_abs_pct_error:.1f}%", r.worst_model]


ROW_HEADER = ["precision", "method", "n", "Spearman", "median abs err", "max abs err", "worst card"]


def format_grid(header: Sequence[str], lines: Sequence[Sequence[str]], markdown: bool = False) -> str:
    """A plain text table for the terminal, or a markdown table for the docs."""
    if markdown:
        out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        out += ["| " + " | ".join(cells) + " |" for cells in lines]
        return "\n".join(out)
    widths = [max(len(c[i]) for c in [header, *lines]) for i in range(len(header))]
    fmt = "  ".join("{:<%d}" % w for w in widths)
    out = [fmt.format(*header), fmt.format(*("-" * w for w in widths))]
    out += [fmt.format(*cells) for cells in lines]
    return "\n".join(out)
