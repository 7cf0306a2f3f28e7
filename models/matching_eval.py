"""Accuracy of the title matcher against hand-labelled titles.

Precision is what protects the ranking (a wrong match corrupts a price); recall only costs
sample size. Both are reported with their counts so a figure is never quoted without them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass, field
from pathlib import Path

from gpuvalue.models.matching import TitleMatcher


@dataclass(frozen=True)
class LabelledTitle:
    source_file: str
    title: str
    subtitle: str | None
    condition: str | None
    expected_model: str | None
    note: str = ""


@dataclass(frozen=True)
class MatchError:
    title: str
    expected_model: str | None
    predicted_model: str | None
    reason: str
    source_file: str = ""


@dataclass(frozen=True)
class MatchMetrics:
    total: int
    labelled_models: int  # rows whose label is a model (not null)
    predicted_models: int  # rows the matcher gave a model
    correct_models: int  # model predicted and equal to the label
    correct_nulls: int
    errors: list[MatchError] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.correct_models / self.predicted_models if self.predicted_models else 1.0

    @property
    def recall(self) -> float:
        return self.correct_models / self.labelled_models if self.labelled_models else 1.0

    @property
    def accuracy(self) -> float:
        return (self.correct_models + self.correct_nulls) / self.total if self.total else 1.0


LABEL_COLUMNS = ("title", "expected_model")


def load_labels(path: str | Path) -> list[LabelledTitle]:
    with open(path, encoding="utf-8", newline="") as handle:
        return parse_labels(handle.read())


def parse_labels(text: str) -> list[LabelledTitle]:
    """Labelled titles from CSV text; ValueError, in one line, for a file that is not such a table.

    Without an ``expected_model`` column every title would count as labelled "no model", and the
    scores would be nonsense; without a row there is nothing to score."""
    reader = csv.DictReader(io.StringIO(text.lstrip("\ufeff"), newline=""))
    missing = [name for name in LABEL_COLUMNS if name not in (reader.fieldnames or [])]
    if missing:
        raise ValueError(f"labels need the columns {', '.join(LABEL_COLUMNS)}; missing: {', '.join(missing)}")
    labels = [
        LabelledTitle(
            source_file=row.get("source_file") or "",
            title=row.get("title") or "",
            subtitle=row.get("subtitle") or None,
            condition=row.get("condition") or None,
            expected_model=(row.get("expected_model") or "").strip() or None,
            note=row.get("note") or "",
        )
        for row in reader
    ]
    if not labels:
        raise ValueError("no labelled titles: the file has a header and no rows")
    return labels


def evaluate(matcher: TitleMatcher, labels: list[LabelledTitle]) -> MatchMetrics:
    predicted = correct = correct_nulls = 0
    errors = []
    for label in labels:
        result = matcher.match(label.title, label.subtitle, label.condition)
        if result.model is not None:
            predicted += 1
        if result.model == label.expected_model:
            if result.model is None:
                correct_nulls += 1
            else:
                correct += 1
        else:
            errors.append(MatchError(label.title, label.expected_model, result.model, result.reason, label.source_file))
    return MatchMetrics(
        total=len(labels),
        labelled_models=sum(1 for label in labels if label.expected_model),
        predicted_models=predicted,
        correct_models=correct,
        correct_nulls=correct_nulls,
        errors=errors,
    )


def format_metrics(metrics: MatchMetrics, max_errors: int = 50) -> str:
    lines = [
        f"titles: {metrics.total} (labelled as a model: {metrics.labelled_models}, as null: "
        f"{metrics.total - metrics.labelled_models})",
        f"precision: {metrics.precision:.4f} ({metrics.correct_models}/{metrics.predicted_models} non-null predictions correct)",
        f"recall:    {metrics.recall:.4f} ({metrics.correct_models}/{metrics.labelled_models} labelled models found)",
        f"accuracy:  {metrics.accuracy:.4f} (nulls correct: {metrics.correct_nulls})",
        f"errors:    {len(metrics.errors)}",
    ]
    for error in metrics.errors[:max_errors]:
        lines.append(
            f"  expected {error.expected_model or 'null'!s:<28} got {error.predicted_model or 'null'!s:<28} "
            f"[{error.reason}] {error.title[:90]}"
        )
    if len(metrics.errors) > max_errors:
        lines.append(f"  ... {len(metrics.errors) - max_errors} more")
    return "\n".join(lines)
