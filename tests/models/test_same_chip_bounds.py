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
    bandwidth on paper, but half its board power: that does not lift it. Its measured 600 W twin caps it."""
    features = {"Full": _card("Full", "GB202", 500.0, 1790, units=752, tdp=600, memory_type="GDDR7"),
                "Max-Q": _card("Max-Q", "GB202", 440.0, 1790, units=752, tdp=300, memory_type="GDDR7"),
                "GeForce": _card("GeForce", "GB202", 419.0, 1790, units=680, tdp=575, memory_type="GDDR7")}
    shown = {"Full": _shown(2.76), "Max-Q": _shown(2.27), "GeForce": _shown(2.34)}
    moved = bound_estimates(shown, {"Full", "GeForce"}, features, "fp16", {"Full": 2.37, "Max-Q": 2.9, "GeForce": 2.3})
    assert moved["Max-Q"].value == 2.27  # its estimate stands: under the twin, not lifted to the 575 W GeForce
    shown["Max-Q"] = _shown(3.0)
    moved = bound_estimates(shown, {"Full", "GeForce"}, features, "fp16", {"Full": 2.37, "Max-Q": 2.9, "GeForce": 2.3})
    assert moved["Max-Q"].value <= 2.76 + 1e-9  # never above its twin


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


def test_a_card_with_at_least_a_measured_siblings_resources_is_never_capped_by_it():
    # Two chips of one family (a B300 and the measured B200): the same compute and bandwidth. The B300 is
    # held level with the B200 (the model's gap comes from memory and power), never below it.
    features = {"B200": _card("B200", "GB100", 2250, 8000, tdp=1000), "B300": _card("B300", "GB110", 2250, 8000, tdp=1400)}
    moved = bound_estimates({"B200": Shown(7.46, 7.16, 7.77), "B300": _shown(9.9)}, {"B200"}, features, "fp16",
                            {"B200": 7.6, "B300": 9.9})
    b = moved["B300"]
    assert b.value == 7.46 and b.low >= 7.16 and b.high >= b.value
    assert "would put it above that card" in b.note and "(7.460;" in b.note
    # More compute (an MI60's 64 compute units to the MI50's 60): lifted to it, never held under it.
    features = _vega20_pair()
    moved = bound_estimates({"MI50": _shown(0.161), "MI60": Shown(0.150, 0.0003, 0.16)}, {"MI50"}, features,
                            "fp16", {"MI50": 0.45, "MI60": 0.48})
    b = moved["MI60"]
    assert b.value >= 0.161 and b.low >= b.value / 1.5  # no lower end near 0 for a bounded card
    assert "would put it below that card" in b.note


def _vega20_pair() -> dict:
    """The MI50 and the MI60: one Vega 20 chip, the MI60 with more compute units and twice the memory."""
    features = {"MI50": _card("MI50", "Vega 20", 26.8, 1024, memory_type="HBM2"),
                "MI60": _card("MI60", "Vega 20", 29.5, 1024, memory_type="HBM2")}
    features["MI60"]["memory_gb"] = 32.0
    return features


def test_a_card_far_above_a_measured_sibling_of_its_chip_is_held_to_the_models_gap_whatever_its_memory():
    features = _vega20_pair()
    moved = bound_estimates({"MI50": _shown(0.161), "MI60": Shown(0.48, 0.0003, 233.0)}, {"MI50"}, features,
                            "fp16", {"MI50": 0.45, "MI60": 0.48})
    b = moved["MI60"]
    assert abs(b.value - 0.161 * 0.48 / 0.45) < 1e-9
    assert b.value / 1.5 - 1e-9 <= b.low <= b.value <= b.high <= b.value * 1.5 + 1e-9


def test_a_twin_of_a_measured_card_shows_its_figure():
    # An A800 SXM4 is an A100 SXM4 with NVLink cut: the same chip, compute and bandwidth.
    features = {"A100 SXM": _card("A100 SXM", "GA100", 312, 2039, tdp=400), "A100 PCIe": _card("A100 PCIe", "GA100", 312, 1935),
                "A800 SXM": _card("A800 SXM", "GA100", 312, 2039, tdp=400)}
    shown = {"A100 SXM": _shown(2.167), "A100 PCIe": _shown(2.065), "A800 SXM": _shown(2.119)}
    moved = bound_estimates(shown, {"A100 SXM", "A100 PCIe"}, features, "fp16",
                            {"A100 SXM": 2.2, "A100 PCIe": 2.1, "A800 SXM": 2.119})
    assert moved["A800 SXM"].value == 2.167


def test_a_lower_power_board_never_outclasses_nor_dominates_one_of_a_higher_power_class():
    # The 300 W A100X (a PCIe A100 with a DPU) states a higher boost clock than the 400 W A100 SXM4.
    features = {"A100 SXM": _card("A100 SXM", "GA100", 311.9, 2039, units=432, tdp=400, memory_type="HBM2e"),
                "A100X": _card("A100X", "GA100", 318.5, 2039, units=432, tdp=300, memory_type="HBM2e")}
    moved = bound_estimates({"A100 SXM": _shown(2.167), "A100X": _shown(2.13)}, {"A100 SXM"}, features, "fp16",
                            {"A100 SXM": 2.2, "A100X": 2.13})
    assert moved["A100X"].value == 2.13 and moved["A100X"].note == ""  # not lifted to the SXM4's figure
    moved = bound_estimates({"A100 SXM": _shown(2.167), "A100X": _shown(2.3)}, {"A100 SXM"}, features, "fp16",
                            {"A100 SXM": 2.2, "A100X": 2.3})
    assert moved["A100X"].value <= 2.167  # held under the full-power board
    # Across chips: a 300 W card with 2x the compute does not outclass a 575 W one.
    from gpuvalue.models.perf.same_chip import _specs, clearly_dominates
    maxq = _specs(_card("Max-Q", "GB202", 440, 1792, tdp=300) | {"architecture": "Blackwell", "segment": "workstation"},
                  "fp16")
    geforce = _specs(_card("5090 D", "GB202", 150, 1792, tdp=575) | {"architecture": "Blackwell", "memory_gb": 8.0},
                     "fp16")
    assert maxq is not None and geforce is not None and not clearly_dominates(maxq, geforce)
    maxq_full_power = _specs(_card("Max", "GB202", 440, 1792, tdp=600) | {"architecture": "Blackwell"}, "fp16")
    assert maxq_full_power is not None and clearly_dominates(maxq_full_power, geforce)


def test_a_bounds_words_match_its_numbers():
    # A chain: Low is lifted by Mid, which a measured Top lifts. Every note cites a card whose figure is on the
    # side its words say, at that card's final figure.
    features = {"Top": _card("Top", "AD104", 60.0, 504), "Mid": _card("Mid", "AD104", 70.0, 504),
                "Low": _card("Low", "AD104", 80.0, 504)}
    shown = {"Top": _shown(0.90), "Mid": _shown(0.70), "Low": _shown(0.60)}
    moved = bound_estimates(shown, {"Top"}, features, "fp16", {"Top": 0.9, "Mid": 0.7, "Low": 0.6})
    final = {m: (moved[m].value if m in moved else shown[m].value) for m in shown}
    for model, b in moved.items():
        assert b.low <= b.value <= b.high
        cited = b.note.split("bounded by the ", 1)[1].split(" (", 1)[0]
        figure = float(b.note.split(" (", 1)[1].split(";", 1)[0])
        assert abs(figure - final[cited]) < 5e-4
        if "below that card" in b.note:
            assert shown[model].value < figure


def test_two_chips_with_the_same_resources_meet_at_the_lower_estimate():
    # The RTX 3070 Ti built on GA102 has the GA104 board's cores, clocks and memory.
    features = {"Ti": _card("Ti", "GA104", 43.5, 608, tdp=290), "Ti GA102": _card("Ti GA102", "GA102", 43.5, 608, tdp=290)}
    moved = bound_estimates({"Ti": _shown(0.49), "Ti GA102": _shown(0.575)}, set(), features, "fp16",
                            {"Ti": 0.49, "Ti GA102": 0.575})
    assert set(moved) == {"Ti GA102"} and moved["Ti GA102"].value == 0.49


def test_an_unmoved_estimates_interval_stays_within_its_measured_siblings():
    # The A100X's estimate sits under the 400 W A100 SXM4 it never goes above: its interval's upper end is
    # that card's figure, not 1.4x its own.
    features = {"A100 SXM": _card("A100 SXM", "GA100", 311.9, 2039, units=432, tdp=400, memory_type="HBM2e"),
                "A100X": _card("A100X", "GA100", 318.5, 2039, units=432, tdp=300, memory_type="HBM2e")}
    moved = bound_estimates({"A100 SXM": Shown(2.167, 2.0, 2.3), "A100X": Shown(2.13, 1.5, 3.0)}, {"A100 SXM"},
                            features, "fp16", {"A100 SXM": 2.2, "A100X": 2.13})
    b = moved["A100X"]
    assert b.value == 2.13 and b.high == 2.167 and b.low == 1.5 and b.note == ""
