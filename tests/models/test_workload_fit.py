"""The per-workload fit (``models/perf/workload.py``) takes its sweeps' decisions from sums per card,
and each only where the direct fit's own sums cannot decide otherwise (``_Problem._fit``): it must
be the direct fit (``_Problem._fit_direct``), bit for bit, whatever the problem. Here on the
evaluation's own problems, on random ones with near ties, and with every decision left to the direct
fit's sums (so that path is held to the same)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuvalue.models.perf import workload as PW
from gpuvalue.models.perf.estimate import CardPoint, distinct_forms
from lambda_fixtures import evaluation_data
from property_budget import examples


@pytest.fixture(scope="module")
def data():
    return evaluation_data()


def _subsets(n_figures: int, members: dict[str, list[int]]) -> list[frozenset[int]]:
    """Every figure, then some cards left out, one and two at a time (the nested folds' sets)."""
    every = set(range(n_figures))
    cards = list(members)
    out = [frozenset(every)]
    out += [frozenset(every - set(members[m])) for m in cards[:4]]
    out += [frozenset(every - set(members[a]) - set(members[b])) for a, b in itertools.islice(
        itertools.combinations(cards, 2), 0, None, 37)][:6]
    return out


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
@pytest.mark.parametrize("every_file", [False, True])
def test_the_fit_is_the_direct_fit_on_the_evaluations_problems(data, precision, every_file):
    result, features = data
    figures = [*result.figures, *result.per_file] if every_file else result.figures
    prepared = PW._prepare(figures, result.per_workload, features, precision, PW.WORKLOAD_FORMS, every_file)
    for form in distinct_forms(prepared.problems, PW.WORKLOAD_FORMS):
        problem = prepared.problems[form]
        assert problem.dense_ok
        for chosen in _subsets(len(problem.figures), prepared.members)[:6]:
            assert problem._fit(chosen) == problem._fit_direct(chosen)


def test_with_every_decision_left_to_the_direct_sums_it_is_still_the_direct_fit(data, monkeypatch):
    # A tolerance so wide that no decision is taken from the sums per card: every start and every
    # workload's choice in every sweep goes the direct fit's way, through its own code path.
    result, features = data
    prepared = PW._prepare(result.figures, result.per_workload, features, "fp16", PW.WORKLOAD_FORMS, False)
    problem = prepared.problems[PW.WORKLOAD_FORMS[1]]
    chosen = _subsets(len(problem.figures), prepared.members)[:3]
    monkeypatch.setattr(PW, "_ROUNDING", 1e6)
    for s in chosen:
        assert problem._fit(s) == problem._fit_direct(s)


# --- random problems ------------------------------------------------------------------------------

REF = CardPoint(model="ref", family="fam 0", source="", compute=100.0, bandwidth=1000.0, l2=6.0, memory=24.0,
                log_perf=None)


def _card(i: int, family: int, source: str, compute: float, bandwidth: float, l2: float, memory: float) -> CardPoint:
    return CardPoint(model=f"card {i}", family=f"fam {family}", source=source, compute=compute,
                     bandwidth=bandwidth, l2=l2, memory=memory, log_perf=None)


@st.composite
def problems(draw):
    """A per-workload problem: cards (some the reference's twin, whose log denominators hardly move
    with alpha, some near it), files of workloads, every card in at least one file, ratios that
    can make two alphas nearly tie."""
    n_files = draw(st.integers(1, 3))
    files = {f"file{s}": [f"file{s}/w{j}" for j in range(draw(st.integers(1, 6)))] for s in range(n_files)}
    n_cards = draw(st.integers(3, 9))
    cards, figures = [], []
    for i in range(n_cards):
        kind = draw(st.sampled_from(["ref", "near", "free", "free"]))
        if kind == "ref":
            compute, bandwidth, l2 = REF.compute, REF.bandwidth, REF.l2
        elif kind == "near":
            compute, bandwidth, l2 = REF.compute * (1 + 1e-12), REF.bandwidth, REF.l2
        else:
            compute = draw(st.floats(10.0, 400.0))
            bandwidth = draw(st.floats(200.0, 3000.0))
            l2 = draw(st.sampled_from([1.0, 4.0, 6.0, 40.0, 72.0]))
        memory = draw(st.sampled_from([8.0, 12.0, 24.0, 80.0]))
        family = draw(st.integers(0, 2))
        mine = draw(st.lists(st.sampled_from(sorted(files)), min_size=1, max_size=n_files, unique=True))
        keys = tuple(k for s in sorted(mine) for k in files[s]
                     if draw(st.booleans()) or k == files[s][0])
        ratios = tuple(math.log(draw(st.sampled_from([0.5, 1.0, 1.5, 2.0])) if draw(st.booleans())
                                else draw(st.floats(0.2, 5.0))) for _ in keys)
        source = "combined" if len(mine) > 1 else mine[0]
        cards.append(_card(i, family, source, compute, bandwidth, l2, memory))
        figures.append(PW._Figure(model=f"card {i}", source=source, workloads=keys, log_ratios=ratios,
                                  weights=PW.source_weights(keys)))
    workloads = sorted({k for f in figures for k in f.workloads})
    form = draw(st.sampled_from(PW.WORKLOAD_FORMS))
    problem = PW._Problem(figures, cards, REF, form, draw(st.sampled_from(sorted(files))), workloads)
    subsets = draw(st.lists(st.sets(st.integers(0, n_cards - 1), min_size=2).map(frozenset), min_size=1,
                            max_size=3))
    return problem, [s for s in subsets]


@settings(max_examples=examples(120), deadline=None)
@given(problems())
def test_random_problems_fit_as_the_direct_fit(case):
    problem, subsets = case
    for chosen in subsets:
        fast, direct = problem._fit(chosen), problem._fit_direct(chosen)
        assert fast == direct or _both_nan(fast, direct)


def _both_nan(a, b) -> bool:
    """Equal but for NaN objectives (a singular random design), which compare unequal to themselves."""
    return (math.isnan(a.objective) and math.isnan(b.objective)
            and {**vars(a), "objective": 0} == {**vars(b), "objective": 0})


def test_the_design_matrix_from_cards_is_the_points_matrix(data):
    result, features = data
    prepared = PW._prepare(result.figures, result.per_workload, features, "fp16", PW.WORKLOAD_FORMS, False)
    problem = prepared.problems[PW.WORKLOAD_FORMS[3]]
    chosen = np.array(sorted(_subsets(len(problem.figures), prepared.members)[5]))
    rows = np.flatnonzero(np.isin(problem.fig_of, chosen))
    sources = problem.card_columns.identifiable_sources(chosen, problem.primary)
    by_point = problem.columns.matrix(rows, sources)
    by_card = problem.card_columns.matrix(chosen, sources)
    assert np.array_equal(by_card[0][np.repeat(np.arange(len(chosen)), problem.fig_len[chosen])], by_point[0])
    assert np.array_equal(by_card[1], by_point[1]) and by_card[2] == by_point[2]
