"""What an expert checks at sight on a bounded estimate (models/perf/same_chip.py), over the whole replay
catalog: the figure lies inside its interval, a bound's words match its numbers, a pair of cards keeps
one order at both precisions, and a sibling that bounds a card pins its interval near its figure."""

from __future__ import annotations

import re

import pytest
from replay_figures import shown_figures

NOTE = re.compile(r"bounded by the (.+?) \((\d+\.\d+); .*?\): the estimate (\d+\.\d+) would put it (above|below|at )")
# Figures are stored to 4 decimals and cited to 3.
CITED = 6e-4


@pytest.fixture(scope="module")
def figures(replay_db):
    return {key: (f["value"], f["low"], f["high"], f["method"]) for key, f in shown_figures(replay_db).items()}


def _notes(method: str) -> list[tuple[str, float, float, str]]:
    return [(by, float(cited), float(estimate), side.strip())
            for by, cited, estimate, side in NOTE.findall(method)]


def test_every_shown_figure_lies_inside_its_interval(figures):
    outside = [(m, p, v, lo, hi) for (m, p), (v, lo, hi, _) in figures.items()
               if lo is not None and hi is not None and not lo - 1e-3 <= v <= hi + 1e-3]
    assert outside == []


def test_a_bounds_words_match_the_numbers(figures):
    """'would put it above that card' only where the estimate is above the figure cited, 'below' only where
    it is below, and the figure cited is the one that card shows."""
    wrong = []
    for (model, precision), (_, _, _, method) in figures.items():
        for by, cited, estimate, side in _notes(method):
            shown = figures.get((by, precision))
            if shown is None or abs(shown[0] - cited) > CITED:
                wrong.append((model, precision, by, cited, shown and shown[0]))
            elif (side == "above" and estimate < cited - CITED) or (side == "below" and estimate > cited + CITED):
                wrong.append((model, precision, by, side, estimate, cited))
    assert wrong == []


def test_a_bound_pair_keeps_one_order_at_both_precisions(figures):
    """A card bounded by a sibling is not above it at one precision and below it at the other (the H800
    PCIe held under the H100 PCIe at FP16 and lifted above it at FP32)."""
    pairs = {(m, by) for (m, p), (_, _, _, method) in figures.items() for by, _, _, _ in _notes(method)}

    def order(a: str, b: str, precision: str) -> int:
        x, y = figures[(a, precision)][0], figures[(b, precision)][0]
        return 0 if abs(x - y) <= 0.005 * max(x, y) else (1 if x > y else -1)
    flipped = [(a, b) for a, b in sorted(pairs) if all((c, p) in figures for c in (a, b) for p in ("fp16", "fp32"))
               and order(a, b, "fp16") * order(a, b, "fp32") < 0]
    assert flipped == []


def test_a_bounded_estimates_interval_stays_near_its_figure(figures):
    """A sibling's figure anchors a bounded card's level: no lower end near 0, no interval 3x wide (the
    MI60 and the Radeon VII were shown at [0.001-0.16])."""
    wide = [(m, p, v, lo, hi) for (m, p), (v, lo, hi, method) in figures.items()
            if "bounded by the " in method and lo is not None and (lo < v / 3 or hi > 3 * lo)]
    assert wide == []


def _v(figures, model, precision):
    return figures[(model, precision)][0]


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_the_bounds_issue_42_found_backwards(figures, precision):
    v = lambda m: _v(figures, m, precision)  # noqa: E731
    # The B300 has the B200's compute and bandwidth: level with it, its interval not below the B200's.
    assert v("B300") >= v("B200")
    assert figures[("B300", precision)][1] >= figures[("B200", precision)][1] - 1e-3
    # The A800 SXM4 is an A100 SXM4 with NVLink cut; the 300 W A100X no faster than the 400 W SXM4.
    assert abs(v("A800 SXM4 80 GB") / v("A100 SXM4 80 GB") - 1) < 0.05
    assert v("A100 PCIe 80 GB") <= v("A100X") <= v("A100 SXM4 80 GB")
    assert figures[("A100X", precision)][2] <= v("A100 SXM4 80 GB") + 1e-3  # nor its interval's upper end
    # Cards with at least a measured sibling's compute and bandwidth sit at or above it at both precisions.
    assert v("H800 PCIe 80 GB") >= v("H100 PCIe 80 GB")
    assert v("H100 SXM5 94 GB") >= v("H100 SXM5 80 GB")
    assert figures[("H100 SXM5 94 GB", precision)][1] >= 0.9 * v("H100 SXM5 80 GB")
    # 64 compute units to the MI50's 60, the same memory system: at least the MI50, within the model's gap.
    assert v("Radeon Instinct MI50") <= v("Radeon Instinct MI60") <= 1.2 * v("Radeon Instinct MI50")
    for card in ("Radeon Instinct MI60", "Radeon VII", "Radeon Pro VII"):
        assert figures[(card, precision)][1] >= v(card) / 3
    # The 300 W RTX PRO 6000 Max-Q is not lifted to the 575 W GeForce boards by its spec compute.
    assert "GeForce RTX 5090" not in figures[("RTX PRO 6000 Blackwell Max-Q", precision)][3]
    # A mining board with its tensor and FMA rates throttled (spec corrections) is not an A100-class card.
    assert v("CMP 170HX 8 GB") < v("GeForce RTX 3070") and v("CMP 170HX 10 GB") < v("GeForce RTX 3070")
