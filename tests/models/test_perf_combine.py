"""Combining harnesses (docs/performance-log.md, "Combining benchmark harnesses"): pure rules on made-up
figures."""

import math

import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.combine import (
    COMBINED,
    ON_ROCM,
    HarnessInput,
    combine_measured,
    disagreeing,
    drop_broken_cells,
)
from gpuvalue.models.perf.measured import WorkloadRatio
from gpuvalue.models.records import PerfFigure

REF = "GeForce RTX 3090"


def fig(harness, model, ms, *, workload="resnet50", batch=12, precision="fp16", gpus=1, excluded=None, rocm=None,
        series=None):
    return HarnessFigure(
        harness=harness, device=model, model=model, excluded=excluded, workload=workload, mode="train",
        precision=precision, metric="ms_per_iter", value=ms, batch_size=batch, batch_basis="stated", gpu_count=gpus,
        framework="pytorch", rocm=rocm, series=series, run=f"{model}-{gpus}-{batch}",
    )


def lambda_fig(model, value, precision="fp16", workloads=10):
    return PerfFigure(model=model, precision=precision, relative_perf=value, source="lambda-pytorch-2024",
                      method="measured", reference=REF, measured=True, workloads=workloads)


def by(result, model, source, precision="fp16"):
    found = [f for f in [*result.figures, *result.combined]
             if f.model == model and f.source == source and f.precision == precision]
    assert len(found) == 1, found
    return found[0]


def test_a_direct_harness_figure_is_the_geomean_of_its_workload_ratios_to_the_reference():
    h = HarnessInput("a", [fig("a", REF, 40.0), fig("a", "L40S", 20.0),
                           fig("a", REF, 30.0, workload="vgg16"), fig("a", "L40S", 30.0, workload="vgg16")])
    res = combine_measured([h])
    l40s = by(res, "L40S", "a")
    assert l40s.relative_perf == pytest.approx(math.sqrt(2.0 * 1.0), rel=1e-4)
    assert l40s.measured and l40s.workloads == 2 and f"vs {REF} (a)" in l40s.method
    assert not res.combined  # one source: the card's own figure is its figure


def test_sources_combine_by_geomean_each_weighing_one_whatever_their_workloads():
    workloads = [f"net{i}" for i in range(30)]
    many = [fig("a", m, ms, workload=w) for w in workloads for m, ms in ((REF, 40.0), ("TITAN RTX", 50.0))]
    res = combine_measured([HarnessInput("a", many)], [lambda_fig("TITAN RTX", 0.64)])
    combined = by(res, "TITAN RTX", COMBINED)
    assert combined.relative_perf == pytest.approx(math.sqrt(0.8 * 0.64), rel=1e-4)
    assert combined.workloads == 40
    assert "geomean of lambda-pytorch-2024 (10 workloads) and a (30 workloads)" in combined.method


def test_a_harness_without_the_reference_is_chained_through_the_cards_it_shares():
    # Harness b has no RTX 3090: TITAN X Pascal is its anchor; the GTX 1080 Ti links it (Lambda 0.33).
    b = [fig("b", "TITAN X Pascal", 100.0, batch=16), fig("b", "GeForce GTX 1080 Ti", 100.0, batch=16),
         fig("b", "GeForce GTX 1080", 125.0, batch=16)]
    res = combine_measured([HarnessInput("b", b, anchors=("TITAN X Pascal",))],
                           [lambda_fig("GeForce GTX 1080 Ti", 0.33, "fp16")])
    gtx1080 = by(res, "GeForce GTX 1080", "b")
    assert gtx1080.relative_perf == pytest.approx(0.33 * 0.8, rel=1e-4)
    assert "chained to GeForce RTX 3090 through GeForce GTX 1080 Ti" in gtx1080.method
    # The 1080 Ti has a direct figure: its chained one is shown, not averaged in, and Lambda's stays.
    ti = by(res, "GeForce GTX 1080 Ti", COMBINED)
    assert ti.relative_perf == pytest.approx(0.33) and "not averaged in (chained): b gives" in ti.method


def test_a_chained_unit_with_no_shared_direct_card_gives_no_figure_and_says_why():
    b = [fig("b", "TITAN X Pascal", 100.0, batch=16), fig("b", "GeForce GTX 1080", 125.0, batch=16)]
    res = combine_measured([HarnessInput("b", b, anchors=("TITAN X Pascal",))])
    assert not res.figures
    assert any(m == "GeForce GTX 1080" and "chain through" in why for m, _, _, why in res.no_figure)


def test_no_ratio_across_batch_sizes_and_the_reason_is_kept():
    h = HarnessInput("a", [fig("a", REF, 40.0), fig("a", "TITAN RTX", 50.0),
                           fig("a", "Radeon RX 7800 XT", 12.0, batch=4)])
    res = combine_measured([h])
    assert not [f for f in res.figures if f.model == "Radeon RX 7800 XT"]
    (why,) = [w for m, p, h_, w in res.no_figure if m == "Radeon RX 7800 XT" and p == "fp16"]
    assert "batch (4)" in why and "across batch sizes" in why


def test_excluded_runs_never_make_a_figure():
    h = HarnessInput("a", [fig("a", REF, 40.0), fig("a", "GeForce RTX 4060 Mobile", 20.0, excluded="laptop part")])
    res = combine_measured([h])
    assert {f.model for f in res.figures} == {REF}
    assert not res.no_figure


def test_usual_spread_and_the_disagreement_flag():
    # Three cards measured by Lambda and harness a: ratios 1.1, 1.1 and 2.0 apart.
    cards = {"TITAN RTX": (0.7, 0.77), "RTX A6000": (1.1, 1.21), "A100 SXM4 40 GB": (1.8, 3.6)}
    figs = [fig("a", REF, 100.0)] + [fig("a", m, 100.0 / h) for m, (_, h) in cards.items()]
    res = combine_measured([HarnessInput("a", figs)], [lambda_fig(m, v) for m, (v, _) in cards.items()])
    assert res.spread["fp16"] == pytest.approx(math.log(1.1), rel=1e-3)
    assert res.spread["fp32"] is None
    a100 = by(res, "A100 SXM4 40 GB", COMBINED)
    assert disagreeing(a100) and "2.00x apart" in a100.method
    assert not disagreeing(by(res, "TITAN RTX", COMBINED))
    assert "agree within the usual spread (1.10x)" in by(res, "TITAN RTX", COMBINED).method


def test_rocm_figures_say_so_and_keep_no_low_confidence_flag():
    h = HarnessInput("a", [fig("a", REF, 40.0), fig("a", "Radeon RX 7900 XTX", 30.0, rocm="6.1")])
    xtx = by(combine_measured([h]), "Radeon RX 7900 XTX", "a")
    assert ON_ROCM in xtx.method and "low confidence" not in xtx.method
    # Without a ROCm version in the run, the catalog's vendor tells.
    h2 = HarnessInput("a", [fig("a", REF, 40.0), fig("a", "Radeon RX 6800", 50.0)])
    assert ON_ROCM in by(combine_measured([h2], vendors={"Radeon RX 6800": "AMD", REF: "NVIDIA"}),
                         "Radeon RX 6800", "a").method


def test_combined_rows_carry_every_part_s_workload_ratios_and_rank_first():
    h = HarnessInput("a", [fig("a", REF, 40.0), fig("a", "TITAN RTX", 50.0)])
    lam = [WorkloadRatio(model="TITAN RTX", precision="fp16", source="lambda-pytorch-2024", workload=w, ratio=r)
           for w, r in (("bert", 0.6), ("ssd", 0.7))]
    res = combine_measured([h], [lambda_fig("TITAN RTX", math.sqrt(0.42), workloads=2)], lam)
    rows = {r.workload: r.ratio for r in res.per_workload if r.source == COMBINED}
    assert rows == {"lambda-pytorch-2024/bert": 0.6, "lambda-pytorch-2024/ssd": 0.7, "a/resnet50": pytest.approx(0.8)}
    assert res.ranking_figures()[("TITAN RTX", "fp16")].source == COMBINED


def test_multi_gpu_runs_give_scaling_rows():
    h = HarnessInput("a", [fig("a", REF, 40.0), fig("a", REF, 50.0, gpus=2)])
    (s,) = combine_measured([h]).scaling
    assert (s.model, s.num_gpu, s.source, s.efficiency) == (REF, 2, "a", pytest.approx(0.8))


def test_broken_cells_are_dropped_relative_to_the_median():
    assert drop_broken_cells({"a": 1.0, "b": 1.1, "c": 0.05}, 10.0) == {"a": 1.0, "b": 1.1}
    assert drop_broken_cells({"a": 1.0, "b": 0.05}, 10.0) == {"a": 1.0, "b": 0.05}
