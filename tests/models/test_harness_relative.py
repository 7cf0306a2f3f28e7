"""Harness figures -> per-workload ratios and multi-GPU scaling (pure rules, made-up figures)."""

import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.harness_relative import harness_relative
from gpuvalue.models.perf.measured import ScalingFigure, WorkloadRatio

REF = "GeForce RTX 3090"


def fig(model, value, *, workload="resnet50", metric="ms_per_iter", batch=12, basis="stated", gpus=1, mode="train",
        precision="fp16", series=None, run=None, baseline_run=None, excluded=None, harness="h"):
    return HarnessFigure(
        harness=harness, device=model or "mystery", model=model, excluded=excluded, workload=workload, mode=mode,
        precision=precision, metric=metric, value=value, batch_size=batch, batch_basis=basis, gpu_count=gpus,
        framework="pytorch", series=series, run=run or f"{model}-{gpus}", baseline_run=baseline_run,
    )


def ratio_of(rel, model, **match):
    found = [
        r for r in rel.ratios
        if r.model == model and all(getattr(r, k) == v for k, v in match.items())
    ]
    assert len(found) == 1, found
    return found[0]


def test_ms_per_iteration_ratio_is_the_reference_time_over_the_cards():
    rel = harness_relative([fig(REF, 40.0), fig("Radeon RX 7900 XTX", 20.0)])
    r = ratio_of(rel, "Radeon RX 7900 XTX")
    assert r.ratio == pytest.approx(2.0) and r.anchor == REF and r.batch_size == 12
    assert ratio_of(rel, REF).ratio == 1.0


def test_score_and_throughput_ratios_are_the_cards_over_the_reference():
    rel = harness_relative(
        [fig(REF, 100.0, metric="score", batch=None, basis="per-device"),
         fig("L40S", 180.0, metric="score", batch=None, basis="per-device")]
    )
    assert ratio_of(rel, "L40S").ratio == pytest.approx(1.8)


def test_figures_at_different_batches_never_compare():
    rel = harness_relative([fig(REF, 40.0, batch=12), fig("Radeon RX 7800 XT", 10.0, batch=4)])
    assert [r.model for r in rel.ratios] == [REF]


def test_unknown_batches_compare_with_nothing():
    rel = harness_relative([fig(REF, 40.0), fig("Radeon RX 6800", 50.0, batch=None, basis="unknown")])
    assert [r.model for r in rel.ratios] == [REF]


def test_default_batches_compare_but_are_flagged():
    rel = harness_relative([fig(REF, 40.0), fig("Radeon RX 7900 XTX", 30.0, basis="default")])
    assert ratio_of(rel, "Radeon RX 7900 XTX").batch_assumed
    assert ratio_of(rel, REF).batch_assumed is False


def test_excluded_and_unmatched_figures_stay_out():
    rel = harness_relative(
        [fig(REF, 40.0), fig("Radeon RX 7700S", 30.0, excluded="laptop part"), fig(None, 10.0, excluded="not a GPU")]
    )
    assert [r.model for r in rel.ratios] == [REF]


def test_series_and_precision_and_mode_keep_groups_apart():
    rel = harness_relative(
        [
            fig(REF, 100.0, metric="score", series="ver1", basis="per-device", batch=None),
            fig("Tesla T4", 40.0, metric="score", series="ver2", basis="per-device", batch=None),
            fig(REF, 40.0, precision="fp32"),
            fig("TITAN V", 20.0, precision="fp16"),
            fig(REF, 10.0, mode="inference"),
            fig("TITAN Xp", 20.0, mode="inference"),
        ]
    )
    assert {r.model for r in rel.ratios} == {REF, "TITAN Xp"}
    assert ratio_of(rel, "TITAN Xp").ratio == pytest.approx(0.5)


def test_repeated_runs_of_a_model_are_combined_by_their_median():
    rel = harness_relative(
        [fig(REF, 40.0, run="a"), fig(REF, 40.0, run="b"), fig("TITAN RTX", 50.0, run="c"),
         fig("TITAN RTX", 40.0, run="d"), fig("TITAN RTX", 1000.0, run="e")]
    )
    r = ratio_of(rel, "TITAN RTX")
    assert r.ratio == pytest.approx(40.0 / 50.0) and (r.runs, r.anchor_runs) == (3, 2)


def test_without_the_reference_the_harness_anchor_is_used_and_said():
    rel = harness_relative(
        [fig("TITAN X Pascal", 100.0), fig("GeForce GTX 1080", 150.0), fig("GeForce GTX TITAN X", 160.0)],
        anchors=("GeForce GTX 1080 Ti", "TITAN X Pascal"),
    )
    assert {r.anchor for r in rel.ratios} == {"TITAN X Pascal"}
    assert ratio_of(rel, "GeForce GTX 1080").ratio == pytest.approx(100 / 150)
    assert rel.notes == [f"no {REF} in some groups: ratios there are against TITAN X Pascal"]
    assert rel.workload_ratios() == []


def test_a_group_without_any_anchor_gives_no_ratios_and_a_note():
    rel = harness_relative([fig("TITAN V", 10.0), fig("GeForce GTX 1080 Ti", 20.0)])
    assert rel.ratios == []
    assert rel.notes == ["1 comparison group(s) (pytorch) have several models but no anchor card: no ratios there"]


def test_workload_ratios_have_lambdas_shape_training_only():
    rel = harness_relative(
        [
            fig(REF, 40.0), fig("Radeon RX 6800", 50.0),
            fig(REF, 40.0, precision="fp64"), fig("Radeon RX 6800", 400.0, precision="fp64"),
            fig(REF, 10.0, mode="inference"), fig("Radeon RX 6800", 12.0, mode="inference"),
            fig(REF, 100.0, metric="score", series="ver2", batch=None, basis="per-device", workload="vit"),
            fig("Radeon RX 6800", 80.0, metric="score", series="ver2", batch=None, basis="per-device", workload="vit"),
        ]
    )
    got = {(w.model, w.workload): w for w in rel.workload_ratios() if w.model != REF}
    assert got == {
        ("Radeon RX 6800", "resnet50"): WorkloadRatio(
            model="Radeon RX 6800", precision="fp16", source="h", workload="resnet50", ratio=0.8),
        ("Radeon RX 6800", "vit (ver2)"): WorkloadRatio(
            model="Radeon RX 6800", precision="fp16", source="h", workload="vit (ver2)", ratio=0.8),
    }


def test_the_same_workload_at_two_batches_gets_distinct_labels():
    rel = harness_relative(
        [fig(REF, 40.0), fig("TITAN RTX", 50.0), fig(REF, 15.0, batch=4), fig("TITAN RTX", 20.0, batch=4)]
    )
    labels = sorted(w.workload for w in rel.workload_ratios() if w.model == "TITAN RTX")
    assert labels == ["resnet50 bs12", "resnet50 bs4"]


def test_multi_gpu_runs_give_scaling_against_the_same_hosts_single_run():
    figures = [
        fig(REF, 40.0, run="host-a"),
        fig(REF, 30.0, run="host-b"),  # another host's faster single card is not the baseline
        fig(REF, 50.0, gpus=2, run="host-a-2x", baseline_run="host-a"),  # 2x12 in 50 ms vs 12 in 40 ms
        fig(REF, 50.0, gpus=2, run="host-a-2x", baseline_run="host-a", workload="vgg16"),  # no single vgg16: skipped
        fig(REF, 25.0, gpus=2, mode="inference", baseline_run="host-a"),  # inference: no scaling row
    ]
    rel = harness_relative(figures)
    assert rel.scaling == [
        ScalingFigure(model=REF, precision="fp16", source="h", num_gpu=2, efficiency=0.8, workloads=1)
    ]
    assert {r.model for r in rel.ratios} == {REF}  # multi-GPU runs make no ratio


def test_scaling_of_whole_system_scores_and_implausible_cells():
    figures = [
        fig("RTX A5000", 100.0, metric="score", batch=None, basis="per-device"),
        fig("RTX A5000", 180.0, metric="score", batch=None, basis="per-device", gpus=2),
        fig("RTX A5000", 100.0, metric="score", batch=None, basis="per-device", workload="vit"),
        fig("RTX A5000", 900.0, metric="score", batch=None, basis="per-device", gpus=2, workload="vit"),  # 4.5x
    ]
    (row,) = harness_relative(figures).scaling
    assert (row.model, row.num_gpu, row.efficiency, row.workloads) == ("RTX A5000", 2, 0.9, 1)


def test_figures_of_several_harnesses_are_refused():
    with pytest.raises(ValueError):
        harness_relative([fig(REF, 1.0, harness="a"), fig(REF, 1.0, harness="b")])
