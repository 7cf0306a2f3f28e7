"""Same-chip bounds (models/perf/same_chip.py): an estimate never sits above a sibling of its chip
that has at least its resources, nor below one it outclasses, and its interval shows the bound."""

from __future__ import annotations

from gpuvalue.models.perf.same_chip import Shown, bound_estimates


def _card(model: str, chip: str, tensor: float, bandwidth: float, *, units: int = 100, tdp: float = 300,
          memory_type: str = "GDDR6") -> dict[str, object]:
    return {"model": model, "vendor": "NVIDIA", "architecture": "Ampere", "segment": "desktop", "chip": chip,
            "tensor_fp16_tflops": tensor, "fp32_tflops": tensor / 2, "fp16_tflops": tensor / 2,
            "bandwidth_gb_s": bandwidth, "l2_cache_mb": 4.0, "memory_gb": 8.0, "tensor_cores": units,
            "tdp_w": tdp, "memory_type": memory_type}


def _shown(value: float) -> Shown:
    return Shown(value, value * 0.8, value * 1.25)


def test_a_cut_down_card_stays_below_its_measured_parent_by_the_models_own_gap():
    features = {"GeForce Full": _card("GeForce Full", "GA104", 40.6, 448),
                "GeForce Cut": _card("GeForce Cut", "GA104", 32.4, 448)}
    shown = {"GeForce Full": _shown(0.40), "GeForce Cut": _shown(0.47)}
    moved = bound_estimates(shown, {"GeForce Full"}, features, "fp16",
                            {"GeForce Full": 0.50, "GeForce Cut": 0.45})
    b = moved["GeForce Cut"]
    assert b.value < 0.40 and abs(b.value - 0.40 * 0.45 / 0.50) < 1e-9
    assert b.low <= b.value <= b.high <= 0.40  # the interval's upper end is the parent's figure
    assert "bounded by the GeForce Full" in b.note


def test_a_card_with_more_of_everything_is_not_shown_below_its_sibling():
    features = {"Big": _card("Big", "GA102", 80.0, 1010), "Small": _card("Small", "GA102", 71.2, 936)}
    moved = bound_estimates({"Big": _shown(0.96), "Small": _shown(1.0)}, {"Small"}, features, "fp16",
                            {"Big": 0.96, "Small": 0.87})
    assert moved["Big"].value >= 1.0 and moved["Big"].low >= 1.0


def test_a_power_limited_twin_stays_below_the_full_power_board_whatever_its_bandwidth():
    features = {"SXM": _card("SXM", "GH100", 989.4, 3360, units=528, tdp=700, memory_type="HBM3"),
                "NVL": _card("NVL", "GH100", 835.5, 3940, units=528, tdp=400, memory_type="HBM3"),
                "Slow SXM": _card("Slow SXM", "GH100", 1070, 2020, units=528, tdp=700, memory_type="HBM3")}
    shown = {"SXM": _shown(4.0), "NVL": _shown(4.5), "Slow SXM": _shown(2.7)}
    moved = bound_estimates(shown, {"SXM"}, features, "fp16", {"SXM": 4.7, "NVL": 5.2, "Slow SXM": 3.0})
    assert moved["NVL"].value < 4.0  # not capped by the 2 TB/s board, which has far less bandwidth
    assert abs(moved["NVL"].value - 4.0 * 835.5 / 989.4) < 1e-9


def test_measured_cards_and_cards_ahead_on_paper_are_never_moved():
    # B has more bandwidth than the measured A (another chip of the family): its estimate above A stands.
    features = {"A": _card("A", "GA104", 40.0, 300), "B": _card("B", "GA106", 20.0, 360)}
    moved = bound_estimates({"A": _shown(0.3), "B": _shown(0.5)}, {"A"}, features, "fp16", {"A": 0.5, "B": 0.5})
    assert moved == {}


def test_bounds_propagate_through_a_chain_of_siblings():
    features = {"Top": _card("Top", "AD104", 80.0, 504), "Mid": _card("Mid", "AD104", 71.0, 504),
                "Low": _card("Low", "AD104", 60.0, 504)}
    shown = {"Top": _shown(0.90), "Mid": _shown(0.70), "Low": _shown(0.95)}
    moved = bound_estimates(shown, {"Top"}, features, "fp16", {"Top": 0.9, "Mid": 0.8, "Low": 0.7})
    mid = moved["Mid"].value if "Mid" in moved else 0.70
    assert moved["Low"].value <= mid <= 0.90


def test_a_published_measured_order_bounds_an_estimate_across_vendors():
    amd = {**_card("AMD Instinct MI300X", "Aqua Vanjaram", 1307.4, 5300), "vendor": "AMD",
           "architecture": "CDNA 3.0"}
    features = {"AMD Instinct MI300X": amd, "H100 SXM5 80 GB": _card("H100 SXM5 80 GB", "GH100", 989.4, 3360)}
    shown = {"AMD Instinct MI300X": _shown(5.5), "H100 SXM5 80 GB": _shown(4.05)}
    moved = bound_estimates(shown, {"H100 SXM5 80 GB"}, features, "fp16",
                            {"AMD Instinct MI300X": 5.5, "H100 SXM5 80 GB": 4.14})
    assert moved["AMD Instinct MI300X"].value <= 4.05
    assert "SemiAnalysis" in moved["AMD Instinct MI300X"].note



def test_a_power_limited_card_never_rises_above_its_measured_full_power_twin():
    """The RTX PRO 6000 Blackwell Max-Q (300 W) has more than the measured RTX 5090's compute and its
    bandwidth, which lifts it; its measured 600 W twin caps it: measured evidence from above wins."""
    features = {"Full": _card("Full", "GB202", 500.0, 1790, units=752, tdp=600, memory_type="GDDR7"),
                "Max-Q": _card("Max-Q", "GB202", 440.0, 1790, units=752, tdp=300, memory_type="GDDR7"),
                "GeForce": _card("GeForce", "GB202", 419.0, 1790, units=680, tdp=575, memory_type="GDDR7")}
    shown = {"Full": _shown(2.76), "Max-Q": _shown(2.27), "GeForce": _shown(2.34)}
    moved = bound_estimates(shown, {"Full", "GeForce"}, features, "fp16", {"Full": 2.37, "Max-Q": 2.9, "GeForce": 2.3})
    assert 2.34 <= moved["Max-Q"].value <= 2.76 + 1e-9  # above the GeForce it outclasses, never above its twin


def test_a_card_above_a_measured_sibling_it_outclasses_is_held_to_the_models_gap():
    # The 3070 Ti's case: 4 % more SMs and 36 % more bandwidth than the measured 3070, estimated 40 % above it.
    features = {"Ti": _card("Ti", "GA104", 42.4, 608), "Base": _card("Base", "GA104", 40.6, 448)}
    moved = bound_estimates({"Ti": _shown(0.55), "Base": _shown(0.39)}, {"Base"}, features, "fp16",
                            {"Ti": 0.55, "Base": 0.45})
    b = moved["Ti"]
    assert abs(b.value - 0.39 * 0.55 / 0.45) < 1e-9
    assert b.low <= b.value <= b.high
    assert "beyond the model's gap of 1.22x" in b.note


def test_the_gap_bound_never_puts_a_card_below_another_measured_sibling_it_outclasses():
    # Two measured siblings disagree with the model's gap between them: the loosest gap bound holds, so
    # the card stays above both (the RTX 3090 Ti over the measured RTX 3090 and RTX 3080).
    features = {"Top": _card("Top", "GA102", 80.0, 1008), "Mid": _card("Mid", "GA102", 71.0, 936),
                "Low": _card("Low", "GA102", 59.5, 760)}
    shown = {"Top": _shown(1.2), "Mid": _shown(1.0), "Low": _shown(0.74)}
    moved = bound_estimates(shown, {"Mid", "Low"}, features, "fp16", {"Top": 0.95, "Mid": 0.87, "Low": 0.71})
    assert moved["Top"].value >= 1.0 * 0.95 / 0.87 - 1e-9


def test_measured_siblings_that_contradict_each_other_bound_a_card_outclassing_both_from_below():
    # The V100s: the SXM2 16 GB measured (in another harness) below the PCIe 32 GB it outclasses; the SXM2
    # 32 GB, which outclasses the PCIe board, is shown above it, not held at the SXM2 16 GB's figure.
    sxm16, pcie32, sxm32 = (_card("SXM2 16", "GV100", 125.0, 900), _card("PCIe 32", "GV100", 113.0, 897),
                            _card("SXM2 32", "GV100", 125.3, 898))
    sxm16["memory_gb"], pcie32["memory_gb"], sxm32["memory_gb"] = 16.0, 32.0, 32.0
    shown = {"SXM2 16": _shown(0.82), "PCIe 32": _shown(0.96), "SXM2 32": _shown(0.95)}
    moved = bound_estimates(shown, {"SXM2 16", "PCIe 32"},
                            {"SXM2 16": sxm16, "PCIe 32": pcie32, "SXM2 32": sxm32}, "fp16",
                            {"SXM2 16": 0.98, "PCIe 32": 0.89, "SXM2 32": 0.98})
    assert moved["SXM2 32"].value >= 0.96 * 0.98 / 0.89 - 1e-9


def _board(model: str, arch: str, chip: str, tensor: float, bandwidth: float, memory: float = 16.0,
           segment: str = "desktop") -> dict[str, object]:
    return {**_card(model, chip, tensor, bandwidth), "architecture": arch, "memory_gb": memory, "segment": segment}


def test_a_newer_card_with_clearly_more_of_everything_is_never_shown_below_the_older_one():
    # The RTX 5080's case: its family's offset put it below the measured RTX 4080 SUPER it outclasses.
    features = {"GeForce New": _board("GeForce New", "Blackwell 2.0", "GB203", 140.0, 960),
                "GeForce Old": _board("GeForce Old", "Ada Lovelace", "AD103", 104.4, 736)}
    moved = bound_estimates({"GeForce New": _shown(0.98), "GeForce Old": _shown(1.236)}, {"GeForce Old"}, features,
                            "fp16", {"GeForce New": 0.98, "GeForce Old": 1.05})
    assert moved["GeForce New"].value >= 1.236
    assert "outclasses that card" in moved["GeForce New"].note


def test_no_clear_lead_for_a_professional_board_over_a_geforce_board_on_the_full_rate_alone():
    from gpuvalue.models.perf.same_chip import _specs, clearly_dominates

    pro = _board("RTX PRO", "Blackwell 2.0", "GB203", 180.0, 896)  # full rate: 1.7x the GeForce's halved one
    geforce = _board("GeForce RTX", "Ada Lovelace", "AD103", 104.4, 736)  # 208.8 at its full rate
    assert not clearly_dominates(_specs(pro, "fp16"), _specs(geforce, "fp16"))
    older = _board("GeForce Older", "Turing", "TU104", 40.0, 448, memory=8.0)
    assert clearly_dominates(_specs(geforce, "fp16"), _specs(older, "fp16"))
    laptop = _board("GeForce Laptop", "Turing", "TU104", 20.0, 256, memory=8.0, segment="mobile")
    assert not clearly_dominates(_specs(geforce, "fp16"), _specs(laptop, "fp16"))  # laptops are not compared
    small = _board("GeForce Small", "Turing", "TU104", 40.0, 448, memory=24.0)
    assert not clearly_dominates(_specs(geforce, "fp16"), _specs(small, "fp16"))  # less memory: no clear lead


def test_a_laptop_part_does_not_cap_a_desktop_board_of_its_chip():
    features = {"Desktop": _card("Desktop", "Navi 33", 40.0, 288),
                "Laptop": {**_card("Laptop", "Navi 33", 40.5, 288), "segment": "mobile"}}
    moved = bound_estimates({"Desktop": _shown(0.34), "Laptop": _shown(0.33)}, set(), features, "fp16",
                            {"Desktop": 0.34, "Laptop": 0.33})
    assert "Desktop" not in moved  # the laptop is lifted to the desktop board it outclasses on paper instead
    assert moved["Laptop"].value >= 0.34
