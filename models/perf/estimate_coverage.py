"""Whether a card's estimate is backed by the measured cards of its own family.

The spec model's cross-validated error is a median over the measured cards. It says little about
a card that its family's measured cards do not bracket: a Tesla P40 is a GTX 1080 Ti chip with
less bandwidth and more memory, so an estimate that puts it above the measured 1080 Ti rests on
the memory term alone. Such an estimate is kept, marked low confidence, and its uncertainty
widened to at least the gap, so it never reads like a well-backed figure.

Pure: an estimate, the card's features and the measured figures in, the estimate out.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpuvalue.models.perf.estimate import (LOW_CONFIDENCE_FACTOR, Features, spec_number, compute_tflops,
                                           family_of)
from gpuvalue.models.perf.label import LOW_CONFIDENCE
from gpuvalue.models.records import PerfFigure

# A measured sibling "has at least the card's specs" when the card's compute and bandwidth are each
# at most this much above the sibling's: within what boost clocks and memory speeds vary by.
SPEC_SLACK = 1.10
# Two resources within this are "the same" (spec databases round clocks and bandwidths); the same-chip
# bounds (``same_chip``) read siblings by it too.
SAME = 1.005


def outranked_sibling(estimate: PerfFigure, features: Features, measured: Mapping[str, float],
                      catalog: Mapping[str, Features]) -> tuple[str, float] | None:
    """The measured card of the same family, with at least this card's compute and bandwidth, that
    the estimate puts this card above (the lowest-measured one), or None."""
    if estimate.measured:
        return None
    family = family_of(features)
    compute = compute_tflops(features, estimate.precision)
    bandwidth = spec_number(features, "bandwidth_gb_s")
    if compute is None or bandwidth is None:
        return None
    above: list[tuple[str, float]] = []  # measured siblings with at least the card's specs
    floor = 0.0  # the highest measured sibling the card has at least the specs of
    for model, value in measured.items():
        sibling = catalog.get(model)
        if model == estimate.model or sibling is None or family_of(sibling) != family:
            continue
        s_compute = compute_tflops(sibling, estimate.precision)
        s_bandwidth = spec_number(sibling, "bandwidth_gb_s")
        if s_compute is None or s_bandwidth is None:
            continue
        at_least = s_compute <= compute * SAME and s_bandwidth <= bandwidth * SAME
        twin = compute <= s_compute * SAME and bandwidth <= s_bandwidth * SAME
        if at_least and not twin:
            floor = max(floor, value)
        if compute > s_compute * SPEC_SLACK or bandwidth > s_bandwidth * SPEC_SLACK:
            continue  # the card is ahead of this sibling on paper: being estimated above it is fair
        above.append((model, value))
    # A sibling measured below one that the card outclasses (at least its specs, not its twin) contradicts
    # that measurement (the V100 SXM2 16 GB below the V100 PCIe 32 GB, against the V100 SXM2 32 GB):
    # estimating the card above it says nothing about the estimate, and the same-chip bounds lift the card
    # to the higher figure (``same_chip``'s contradicted siblings, by the same rule).
    found: tuple[str, float] | None = None
    for model, value in above:
        if floor <= value < estimate.relative_perf and (found is None or value < found[1]):
            found = (model, value)
    return found


def mark_uncovered(estimate: PerfFigure, features: Features, measured: Mapping[str, float],
                   catalog: Mapping[str, Features]) -> PerfFigure:
    """The estimate, marked low confidence when it puts the card above a measured sibling that has
    at least its specs (``outranked_sibling``); otherwise unchanged."""
    above = outranked_sibling(estimate, features, measured, catalog)
    if above is None:
        return estimate
    model, value = above
    reason = (f"estimated above the measured {model} ({value:.3f}), which has at least its compute and "
              f"bandwidth, so its estimates are likely high")
    method = estimate.method or ""
    method += f", {reason}" if LOW_CONFIDENCE in method else f"; {LOW_CONFIDENCE}: {reason}"
    base = estimate.uncertainty or 0.0
    widened = max(base if LOW_CONFIDENCE in (estimate.method or "") else base * LOW_CONFIDENCE_FACTOR,
                  estimate.relative_perf / value - 1)
    return estimate.model_copy(update={"method": method, "uncertainty": round(widened, 4)})
