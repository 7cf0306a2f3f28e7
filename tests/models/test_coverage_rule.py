"""The cards the pipeline shops for come from the catalog by a written rule, with searches derived from names."""

from __future__ import annotations

from datetime import date

from gpuvalue.models.coverage import CoverageRule, browse_calls, covered, rule_reason, search_query


def card(model, vendor="NVIDIA", memory=24.0, support="current", released=date(2020, 9, 1), segment="desktop",
         form="PCIe dual-slot", is_released=True):
    return {"model": model, "vendor": vendor, "memory_gb": memory, "framework_support": support,
            "release_date": released, "released": is_released, "segment": segment, "form_factor": form}


CATALOG = [
    card("GeForce RTX 3090"),
    card("GeForce RTX 3060 12 GB", memory=12.0),
    card("GeForce RTX 3060 8 GB", memory=8.0),
    card("GeForce RTX 3060 8 GB GA104", memory=8.0),
    card("GeForce RTX 3050 6 GB", memory=6.0),  # under 8 GB
    card("GeForce GTX 1080 Ti", memory=11.0, support="legacy", released=date(2017, 3, 10)),  # legacy still counts
    card("GeForce GTX TITAN X", memory=12.0, support="legacy", released=date(2015, 3, 17)),  # before 2016
    card("Tesla K80", memory=24.0, support="none", released=date(2014, 11, 17), segment="datacenter",
         form="PCIe passive"),
    card("Radeon RX 6700 XT", vendor="AMD", memory=12.0, support="none"),  # no ROCm wheel
    card("Radeon RX 7900 XTX", vendor="AMD"),
    card("Arc A770", vendor="Intel", memory=16.0),
    card("A100 PCIe 40 GB", memory=40.0, segment="datacenter", form="PCIe passive"),
    card("A100 SXM4 40 GB", memory=40.0, segment="datacenter", form="SXM module"),  # no module
    card("A40 PCIe", memory=48.0, segment="datacenter", form="PCIe passive"),
    card("GeForce RTX 4090 Mobile", memory=16.0, segment="mobile", form="mobile"),
    card("PG506-207", memory=24.0, segment="datacenter", form="PCIe passive"),  # engineering board
    card("RTX A5000-8Q", memory=8.0, segment="workstation"),  # a vGPU profile
    card("RTX A6000", memory=48.0, segment="workstation"),
    card("Quadro GP100", memory=16.0, support="legacy", segment="workstation", released=date(2016, 10, 1)),
    card("GeForce RTX 5090 Ti", memory=32.0, is_released=False, released=date(2026, 1, 1)),  # not released
]


def test_the_rule_covers_what_a_deep_learning_buyer_could_use():
    found = covered(CATALOG)
    assert [m.model for m in found.models] == [
        "A100 PCIe 40 GB", "A40 PCIe", "Arc A770", "GeForce GTX 1080 Ti", "GeForce RTX 3060 12 GB",
        "GeForce RTX 3060 8 GB", "GeForce RTX 3060 8 GB GA104", "GeForce RTX 3090", "Quadro GP100", "RTX A6000",
        "Radeon RX 7900 XTX",
    ]
    assert all(m.why == "rule" for m in found.models)
    reasons = {row["model"]: rule_reason(row, CoverageRule()) for row in CATALOG}
    assert reasons["GeForce RTX 3050 6 GB"] == "under 8 GB"
    assert reasons["Radeon RX 6700 XT"] == reasons["Tesla K80"] == "no current or legacy PyTorch build"
    assert reasons["GeForce GTX TITAN X"] == "not released in 2016 or later"
    assert reasons["A100 SXM4 40 GB"] == reasons["GeForce RTX 4090 Mobile"] == (
        "not a PCIe card for a desktop or server slot")
    assert reasons["PG506-207"] == "engineering or OEM board"
    assert reasons["RTX A5000-8Q"] == "vGPU profile, not a card"
    assert found.left_out == {"PG506-207": "engineering or OEM board", "RTX A5000-8Q": "vGPU profile, not a card"}


def test_each_search_is_the_vendor_and_the_catalog_name_and_variants_share_one():
    found = covered(CATALOG)
    query = {m.model: m.query for m in found.models}
    assert query["GeForce RTX 3090"] == "NVIDIA GeForce RTX 3090"
    # The memory size and a chip revision are the matcher's business: the 3060s share one search.
    assert query["GeForce RTX 3060 12 GB"] == query["GeForce RTX 3060 8 GB GA104"] == "NVIDIA GeForce RTX 3060"
    # "PCIe" stays only where a module of the same name exists.
    assert query["A100 PCIe 40 GB"] == "NVIDIA A100 PCIe"
    assert query["A40 PCIe"] == "NVIDIA A40"
    assert query["Radeon RX 7900 XTX"] == "AMD Radeon RX 7900 XTX"
    assert query["Arc A770"] == "Intel Arc A770"
    assert query["Quadro GP100"] == "NVIDIA Quadro GP100"  # a chip name that is the model name stays
    assert len(found.queries) == len(found.models) - 2  # three 3060 variants, one search
    assert search_query("NVIDIA A10", "NVIDIA") == "NVIDIA A10"  # no vendor twice
    assert search_query("GeForce RTX 4070 GDDR6", "NVIDIA") == "NVIDIA GeForce RTX 4070"
    assert search_query("TITAN V CEO Edition", "NVIDIA") == "NVIDIA TITAN V"


def test_settings_add_and_remove_models_and_change_the_memory_floor():
    rule = CoverageRule(add=("GeForce RTX 3050 6 GB", "Tesla K80", "No Such Card"), remove=("geforce rtx 3090",))
    found = covered(CATALOG, rule)
    names = {m.model: m.why for m in found.models}
    assert names["GeForce RTX 3050 6 GB"] == names["Tesla K80"] == "added in settings"
    assert "GeForce RTX 3090" not in names
    assert found.unknown == ("No Such Card",)
    lower = covered(CATALOG, CoverageRule(min_memory_gb=6))
    assert "GeForce RTX 3050 6 GB" in {m.model for m in lower.models}


def test_browse_api_calls_are_one_token_and_each_search_s_pages():
    assert browse_calls(166, 1) == 167
    assert browse_calls(84, 2) == 169
