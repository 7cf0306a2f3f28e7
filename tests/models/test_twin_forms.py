"""At fp32 the GeForce tensor-rate switch changes no card (TF32 is halved in every form), so each
full-rate form fits exactly what its half-rate form fits: both rooflines fit it once
(``estimate.points_key``) and the form choice, which keeps the earlier form on a tie, skips it
(``estimate.distinct_forms``). Nothing it decides changes."""

from __future__ import annotations

import dataclasses
import math
import statistics

import pytest

from gpuvalue.models.perf import workload as PW
from gpuvalue.models.perf.estimate import CANDIDATE_FORMS, distinct_forms, prepare_problems, select_form_index
from lambda_fixtures import evaluation_data


@pytest.fixture(scope="module")
def data():
    return evaluation_data()


def test_at_fp32_only_the_half_rate_forms_are_distinct_and_at_fp16_every_form_is(data):
    result, features = data
    for forms, prepared in [
        (CANDIDATE_FORMS, lambda p: prepare_problems(result.figures, features, p, CANDIDATE_FORMS)[0]),
        (PW.WORKLOAD_FORMS, lambda p: PW._prepare(result.figures, result.per_workload, features, p,
                                                  PW.WORKLOAD_FORMS, False)),
    ]:
        fp32, fp16 = prepared("fp32"), prepared("fp16")
        assert distinct_forms(fp32.problems, forms) == [f for f in forms if not f.full_rate_geforce]
        assert distinct_forms(fp16.problems, forms) == list(forms)
        assert all(fp16.problems[f].twin is None for f in forms)


def test_a_twin_fits_what_it_would_fit_on_its_own(data):
    result, features = data
    prepared = PW._prepare(result.figures, result.per_workload, features, "fp32", PW.WORKLOAD_FORMS, False)
    twin_form = next(f for f in PW.WORKLOAD_FORMS if f.full_rate_geforce)
    twin = prepared.problems[twin_form]
    alone = PW._Problem(twin.figures, twin.cards, twin.ref, twin.form, twin.primary, twin.workloads)
    chosen = frozenset(range(1, len(twin.figures)))
    assert twin.fit(chosen) == alone.fit(chosen)
    assert twin.fit(chosen).form == twin_form
    assert dataclasses.replace(twin.fit(chosen), form=twin.twin.form) == twin.twin.fit(chosen)


def test_the_form_choice_is_the_one_over_every_form(data):
    """The choice without the twins is the loop over all eight forms, fold by fold."""
    result, features = data
    prepared, _, _ = prepare_problems(result.figures, features, "fp32", CANDIDATE_FORMS)
    everything = list(range(len(next(iter(prepared.problems.values())).points)))
    for model in prepared.models[:6]:
        rest = [i for i in everything if i not in set(prepared.members[model])]
        best, best_score = CANDIDATE_FORMS[0], math.inf
        for form in CANDIDATE_FORMS:
            problem = prepared.problems[form]
            errors = []
            for other in [m for m in prepared.models if prepared.target[m] in set(rest)]:
                fit = problem.fit([i for i in rest if i not in set(prepared.members[other])])
                t = prepared.target[other]
                errors.append(abs(fit.log_predict(problem.points[t], problem.ref) - problem.log_perf[t]))
            score = statistics.fmean(errors)
            if score < best_score - 1e-12:
                best, best_score = form, score
        assert select_form_index(prepared, rest, CANDIDATE_FORMS) == best
