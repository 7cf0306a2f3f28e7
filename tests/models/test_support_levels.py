"""framework_support is a level (current / legacy / none) read from the newest PyTorch release's wheel matrix."""

from __future__ import annotations

from datetime import date

import pytest

from gpuvalue.models.support_tables import (
    CURRENT_CUDA_WHEELS,
    LEGACY_CUDA_WHEELS,
    PYTORCH_VERSION,
    SUPPORT_FACTS,
    cuda_support,
    framework_support,
    framework_supported,
    supported_flag,
)


@pytest.mark.parametrize(("cc", "level"), [
    ("5.0", "legacy"), ("5.2", "legacy"),  # Maxwell: only the CUDA 12.6 wheels
    ("6.0", "legacy"), ("6.1", "legacy"),  # Pascal (GTX 10, P40, P100)
    ("7.0", "legacy"),  # Volta (V100, TITAN V)
    ("7.5", "current"),  # Turing: the default CUDA 13.x wheels start here
    ("8.6", "current"), ("8.9", "current"), ("9.0", "current"), ("10.0", "current"),
    ("12.0", "current"), ("12.1", "current"),  # PTX for 12.0 runs on later devices
    ("3.7", "none"), ("3.0", "none"),  # Kepler: no wheel of the newest release
    (None, None), ("", None), ("n/a", None),
])
def test_cuda_levels(cc, level):
    assert cuda_support(cc) == level
    assert framework_support("NVIDIA", cc, None, "x") == level


def test_amd_and_intel_have_no_legacy_build():
    assert framework_support("AMD", None, "Navi 31", "RDNA 3.0") == "current"  # gfx1100
    assert framework_support("AMD", None, "Navi 21", "RDNA 2.0") == "current"  # gfx1030
    assert framework_support("AMD", None, "Navi 22", "RDNA 2.0") == "none"  # gfx1031 is not built for
    assert framework_support("AMD", None, "Ellesmere", "GCN 4.0") == "none"  # nothing before Vega
    assert framework_support("AMD", None, None, None) is None
    assert framework_support("Intel", None, "DG2-512", "Xe-HPG") == "current"
    assert framework_support("Intel", None, "Kaby Lake GT2", "Generation 9.5") == "none"
    assert framework_support("Matrox", None, None, None) == "none"
    assert framework_support(None, None, None, None) is None


def test_the_former_flag_is_derived_from_the_level():
    assert [supported_flag(level) for level in ("current", "legacy", "none", None)] == [True, False, False, None]
    assert framework_supported("NVIDIA", "6.1", None, "Pascal") is False
    assert framework_supported("NVIDIA", "8.6", None, "Ampere") is True


def test_the_wheels_are_the_newest_release_and_every_fact_is_sourced_and_dated():
    assert PYTORCH_VERSION == "2.14"
    assert LEGACY_CUDA_WHEELS == ("cu126",) and set(CURRENT_CUDA_WHEELS) == {"cu130", "cu132"}
    for fact in SUPPORT_FACTS:
        assert fact.statement and fact.source and isinstance(fact.dated, date)
    # The dated end of the legacy builds: the RFC for 2.15 removes them.
    rfc = [f for f in SUPPORT_FACTS if "#190385" in f.source and "2.15" in f.statement]
    assert rfc and rfc[0].dated == date(2026, 7, 17)
    # What was not re-read for this release says so.
    assert any(not f.verified and "ROCm wheel targets" in f.statement for f in SUPPORT_FACTS)


def test_an_nvidia_card_older_than_maxwell_is_none_even_without_a_compute_capability():
    assert framework_support("NVIDIA", None, None, "Curie") == "none"  # GeForce 7900 GS: before CUDA
    assert framework_support("NVIDIA", None, None, "Kepler") == "none"
    assert framework_support("NVIDIA", None, None, "Pascal") is None  # legacy or none: the catalog must say
    assert framework_support("NVIDIA", None, None, None) is None
    assert framework_support("NVIDIA", "6.1", None, "Pascal") == "legacy"
