"""Precision and recall of the cloud GPU name matcher against hand labels (``tests/labels/cloud_names.csv``).

Precision is what matters most: a model returned for a row whose label is another model, or empty,
puts a wrong GPU behind a price. Recall counts the labelled models the matcher found. Each row is
matched as its source's parser matches it: with the source's own reading of its names, where it
declares one (``readers``, collected from the registry by ``scrapers/rental_names.py``, which also
prints the figures). Pure: the caller passes the labels' text in.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from gpuvalue.models.cloud_names import NameReading, match_cloud_gpu

# source -> its own reading of a name: (provider, published name, instance type) -> NameReading or None
Readers = Mapping[str, Callable[[str, str, str | None], NameReading | None]]


@dataclass(frozen=True)
class LabelRow:
    source: str
    provider: str
    gpu_name: str
    memory_gb: float | None
    gpu_arch: str | None
    instance_type: str | None
    expected_model: str | None
    how_labelled: str
    split: str


@dataclass
class Evaluation:
    rows: int = 0
    labelled_models: int = 0  # rows whose label is a model
    returned: int = 0  # rows the matcher gave a model
    correct: int = 0  # returned and equal to the label
    wrong: list[tuple[LabelRow, str | None, str]] = field(default_factory=list)  # (row, got, reason)
    missed: list[tuple[LabelRow, str]] = field(default_factory=list)  # labelled model, matcher gave none

    @property
    def precision(self) -> float:
        return self.correct / self.returned if self.returned else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.labelled_models if self.labelled_models else 1.0

    def summary(self) -> str:
        return (
            f"{self.rows} rows, {self.labelled_models} labelled with a model; matcher returned {self.returned}, "
            f"{self.correct} correct: precision {self.precision:.3f}, recall {self.recall:.3f}"
        )


def read_labels(text: str) -> list[LabelRow]:
    """The label rows of ``cloud_names.csv`` (empty cells become None)."""
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        rows.append(
            LabelRow(
                source=r["source"],
                provider=r["provider"],
                gpu_name=r["gpu_name"],
                memory_gb=float(r["memory_gb"]) if r["memory_gb"] else None,
                gpu_arch=r["gpu_arch"] or None,
                instance_type=r["instance_type"] or None,
                expected_model=r["expected_model"] or None,
                how_labelled=r["how_labelled"],
                split=r["split"],
            )
        )
    return rows


def evaluate(rows: list[LabelRow], split: str | None = None, readers: Readers | None = None) -> Evaluation:
    """Run the matcher on each row (of one split, or all), as its source reads its names (``readers``),
    and count against the labels."""
    out = Evaluation()
    for row in rows:
        if split is not None and row.split != split:
            continue
        reader = (readers or {}).get(row.source)
        got = match_cloud_gpu(
            row.gpu_name, memory_gb=row.memory_gb, arch=row.gpu_arch, provider=row.provider, instance_type=row.instance_type,
            reading=None if reader is None else reader(row.provider, row.gpu_name, row.instance_type),
        )
        out.rows += 1
        if row.expected_model is not None:
            out.labelled_models += 1
        if got.model is not None:
            out.returned += 1
            if got.model == row.expected_model:
                out.correct += 1
            else:
                out.wrong.append((row, got.model, got.reason))
        elif row.expected_model is not None:
            out.missed.append((row, got.reason))
    return out
