"""One rule for the word "measured" (models/perf/label.py): benchmarks must carry most of a figure's
weight. A weighted figure that is 68% the spec estimate was called "speed measured (weighted)"."""

from __future__ import annotations

import pytest

from gpuvalue.models.budget_answers import _setup_json
from gpuvalue.models.speed_evidence import MEASURED_MAJORITY, evidence_label, speed_evidence, weighted_shares
from gpuvalue.models.perf.weighted import Evidence, Weighted, describe
from gpuvalue.models.recommend import perf_provenance
from gpuvalue.models.unpriced import Unpriced
from gpuvalue.warehouse.outputs.feed import daily_item  # noqa: F401  (the feed imports the rule: no other wording)

MOSTLY_ESTIMATE = {"perf_source": "weighted", "perf_method": "weighted by each source's agreement with the others: "
                   "gpu-insights 0.834 (32%), estimate (held out) 0.724 (68%); 80% interval 0.677-0.846"}
MOSTLY_MEASURED = {"perf_source": "weighted", "perf_method": "weighted by each source's agreement with the others: "
                   "gpu-insights 0.850 (7%), lambda-pytorch-v1 0.716 (61%), estimate (held out) 0.820 (32%); "
                   "80% interval 0.701-0.790"}
ROCM_HALF = {"perf_source": "weighted", "perf_method": "weighted by each source's agreement with the others: "
             "pytorch-gpu-benchmark 1.384 (47%), estimate (held out) 0.897 (53%); 80% interval 0.834-1.453; on ROCm"}
REFERENCE = {"perf_source": "weighted", "perf_method": "weighted: the reference card, 1.0 by definition in every source"}


def test_a_figure_mostly_of_the_estimate_is_an_estimate_checked_against_its_benchmarks():
    e = speed_evidence(MOSTLY_ESTIMATE)
    assert not e.measured and e.benchmark_share == pytest.approx(0.32) and e.benchmarks == ("gpu-insights",)
    assert perf_provenance(MOSTLY_ESTIMATE) == "speed estimate, checked against 1 benchmark (gpu-insights)"
    assert "measured" not in perf_provenance(MOSTLY_ESTIMATE) and "measured" not in evidence_label(MOSTLY_ESTIMATE)
    assert e.short() == "estimate (1 bench, 32%)"  # the benchmark's share: not an estimate made from it


def test_a_figure_mostly_of_benchmarks_is_measured_and_says_how_much():
    e = speed_evidence(MOSTLY_MEASURED)
    assert e.measured and e.benchmark_share == pytest.approx(0.68)
    assert perf_provenance(MOSTLY_MEASURED) == "speed measured (gpu-insights, lambda-pytorch-v1: 68% of the weight)"
    assert e.short() == "measured 68%"
    rocm = speed_evidence(ROCM_HALF)
    assert not rocm.measured and evidence_label(ROCM_HALF) == (
        "estimate, checked against 1 benchmark (pytorch-gpu-benchmark (ROCm))")


def test_single_sources_the_reference_and_estimates():
    assert perf_provenance({"perf_source": "lambda-pytorch-2024", "perf_method": "measured: ..."}) == (
        "speed measured (lambda-pytorch-2024)")
    assert perf_provenance(REFERENCE) == "speed measured (the reference card, 1.0 by definition)"
    assert perf_provenance({"perf_source": "estimate", "perf_method": "estimate: roofline v3"}) == (
        "speed estimated from specs")
    assert evidence_label({"perf_source": "estimate", "perf_method": "x; low confidence: AMD"}) == (
        "estimate, low confidence")
    assert speed_evidence({}) is None and perf_provenance({}) == ""


def test_the_shares_read_back_are_the_ones_the_weighting_wrote():
    """The rule reads the method text ``describe`` writes: the two stay in step."""
    pieces = (Evidence("gpu-insights", 0.8), Evidence("lambda", 0.7, label="lambda-pytorch-2024"),
              Evidence("estimate", 0.9, label="estimate (held out)"))
    fig = Weighted(value=0.8, low=0.7, high=0.9, sigma=0.1, shares=tuple(zip(pieces, (0.2, 0.35, 0.45))))
    assert weighted_shares(describe(fig)) == [("gpu-insights", 0.2), ("lambda-pytorch-2024", 0.35),
                                              ("estimate (held out)", 0.45)]
    e = speed_evidence({"perf_source": "weighted", "perf_method": describe(fig)})
    assert e.benchmark_share == pytest.approx(0.55) and e.measured and 0.55 > MEASURED_MAJORITY


def test_every_output_uses_the_rule():
    """recommend --json carries it beside the figure; the unpriced cards' words follow it."""
    from gpuvalue.models.budget_answers import Setup
    from gpuvalue.models.multi_gpu import Scaling

    row = {**MOSTLY_ESTIMATE, "model": "GeForce RTX 4070 SUPER", "price_usd": 500.0, "relative_perf": 0.757}
    setup = Setup(model=row["model"], gpus=1, price_usd=500.0, cards_usd=500.0, platform_usd=0.0, cost_usd=500.0,
                  relative_perf=0.757, throughput=0.757, throughput_low=None, throughput_high=None, value=1.5,
                  memory_gb=12.0, scaling=Scaling(efficiency=1.0, measured=False, words=""), price_tier="recent",
                  yearly_electricity_usd=None, row=row)
    body = _setup_json(setup)
    assert body["speed_measured"] is False and body["speed_benchmark_share"] == 0.32 and body["speed_benchmarks"] == 1
    assert body["speed"] == "speed estimate, checked against 1 benchmark (gpu-insights)"
    unpriced = Unpriced(model="X", memory_gb=16, relative_perf=0.6, perf_source="weighted", launch_price_usd=None,
                        release_date=None, why="", perf_method=MOSTLY_ESTIMATE["perf_method"])
    assert "0.60x estimated" in unpriced.words()
    assert "0.60x measured" in Unpriced(model="X", memory_gb=16, relative_perf=0.6, perf_source="weighted",
                                        launch_price_usd=None, release_date=None, why="",
                                        perf_method=MOSTLY_MEASURED["perf_method"]).words()
