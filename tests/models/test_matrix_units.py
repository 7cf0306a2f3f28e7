"""Which cards have matrix units (tensor cores, matrix cores, XMX): what fine-tuning answers require."""

from __future__ import annotations

import pytest

from gpuvalue.models.matrix_units import has_matrix_units


@pytest.mark.parametrize("vendor, architecture, model, expected", [
    ("NVIDIA", "Turing", "GeForce RTX 2060", True),
    ("NVIDIA", "Turing", "GeForce GTX 1660", False),  # TU116: no tensor cores
    ("NVIDIA", "Turing", "GeForce GTX 1650 SUPER", False),
    ("NVIDIA", "Turing", "T1000", False),
    ("NVIDIA", "Turing", "Tesla T4", True),
    ("NVIDIA", "Pascal", "GeForce GTX 1080 Ti", False),
    ("NVIDIA", "Volta", "Tesla V100 PCIe 32 GB", True),
    ("NVIDIA", "Ampere", "GeForce RTX 3090", True),
    ("NVIDIA", "Blackwell 2.0", "GeForce RTX 5090", True),
    ("AMD", "RDNA 2.0", "Radeon RX 6900 XT", False),
    ("AMD", "RDNA 3.0", "Radeon RX 7900 XTX", True),
    ("AMD", "RDNA 4.0", "Radeon RX 9070", True),
    ("AMD", "CDNA 2.0", "AMD Instinct MI210", True),
    ("AMD", "GCN 5.1", "Radeon VII", False),
    ("Intel", "Xe-HPG", "Arc A770", True),
    ("Intel", "Xe2-HPG", "Arc B580", True),
    ("Intel", "Xe-LP", "Iris Xe MAX", False),
    (None, None, "Mystery", False),
])
def test_matrix_units_by_vendor_and_architecture(vendor, architecture, model, expected):
    assert has_matrix_units({"vendor": vendor, "architecture": architecture, "model": model}) is expected


def test_compute_capability_decides_where_known():
    assert has_matrix_units({"vendor": "NVIDIA", "model": "X", "compute_capability": "7.0"})
    assert not has_matrix_units({"vendor": "NVIDIA", "model": "X", "compute_capability": "6.1", "architecture": "Volta"})
    assert not has_matrix_units({"vendor": "NVIDIA", "model": "GeForce GTX 1660 Ti", "compute_capability": "7.5"})
