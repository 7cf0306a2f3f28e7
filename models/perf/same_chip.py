"""Same-chip bounds: an estimate never contradicts what the spec sheets of its own chip's siblings say.

The spec model is fitted across families, and its error on one card is a median's worth of noise: it
can put an RTX 3060 Ti (a GA104 with fewer SMs and the same memory) above the measured RTX 3070, or an
RTX 3090 Ti below the RTX 3090 it outclasses in every resource. A practitioner rejects such an order at
sight, whatever the model's error on average. So before an estimate is shown (ranked, recommended,
published), it is held between the figures of its siblings:

- **From above**, by every card of the same chip that has at least its compute (at the precision) and
  at least its memory bandwidth: a cut-down SKU is never above its parent, nor a card above the full
  version of its chip with the same or a better memory system.
- **From above**, by a card of the same chip with the same number of tensor (matrix) units, the same
  memory type, more compute and a higher board power: the power limit sets the clock training
  sustains (NVIDIA's own tensor figure for the 400 W H100 NVL is 16 % below the 700 W SXM5's), so a
  power-limited board is not above its full-power twin whatever its bandwidth.
- **From above**, by the measured card of its family that the estimate was flagged against ("likely
  high", ``estimate_coverage``): the sibling that makes it likely high bounds it.
- **From above**, by a card that public training benchmarks measured faster where the spec sheets say
  otherwise (``PUBLISHED_ORDERS``: the MI300X and the H100 SXM5), each order citing its source.
- **From below**, by every card of the same chip that it has at least the compute and bandwidth of.
- **From above**, by a measured desktop, professional or datacenter card of the same chip and memory
  size that it has at least the compute and bandwidth of, times the model's own ratio of the two: the
  model knows the gap between two cards of one chip better than its level, which the measurement gives.
  Without it a GeForce RTX 3070 Ti (4 % more SMs and 36 % more bandwidth than the measured RTX 3070) was
  shown 40 % above it, at the family's level rather than the chip's.
- **Across chips** (``clearly_dominates``): a desktop, workstation or datacenter card is never shown
  below a card of its vendor's line that it outclasses beyond a close call (the same or a newer
  generation, ``CLEAR_MARGIN`` more compute whichever rate GeForce tensor math runs at, at least its
  bandwidth and memory), and never above a measured card that so outclasses it. Two families' offsets
  rest on different measured cards; where they disagree, the card that outclasses the other is lifted
  level with it (an RX 9070 XT is not shown below an RX 6900 XT).

Laptop parts bound no desktop card from above (their spec sheets' boost clocks are not what their power
limit sustains), and measured siblings that contradict each other (the V100 SXM2 16 GB measured below
the V100 PCIe 32 GB it outclasses, in another harness) bound a card outclassing both from below by the
higher figure, not from above by the lower.

A bound moves the figure to the sibling's, says so in the method, and the 80 % interval shows it: a
figure held down has its upper end at the bound, one held up its lower end. Measured cards are never
moved: a bound is a statement about what an estimate may claim, not about a measurement.

Pure: figures and features in, bounded figures out.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from gpuvalue.models.perf.arch_tables import matrix_rate
from gpuvalue.models.perf.estimate import Features, as_text, compute_tflops, family_of, spec_number
from gpuvalue.models.perf.estimate_coverage import SAME, SPEC_SLACK
from gpuvalue.models.records import Precision

# Two resources within ``SAME`` are "the same" (spec databases round clocks and bandwidths; declared in
# estimate_coverage, whose flag reads siblings by the same rule).
MAX_PASSES = 200
# A full-power twin bounds a power-limited board only where its bandwidth is at least this share of the
# board's: further apart, the memory system can outweigh the clock (an H100 SXM5 64 GB at 2 TB/s says
# nothing about the 3.9 TB/s H100 NVL).
TWIN_BANDWIDTH_SHARE = 0.8  # bounds propagate through chains of siblings; they settle in a few passes


@dataclass(frozen=True)
class Shown:
    """A card's shown figure and its 80 % interval."""

    value: float
    low: float
    high: float


@dataclass(frozen=True)
class Bounded:
    """An estimate after the same-chip bounds: its figure, interval and why it moved (no note: only its
    interval was cut, to what its measured siblings allow)."""

    value: float
    low: float
    high: float
    note: str


@dataclass(frozen=True)
class _Specs:
    chip: str
    family: str
    compute: float
    bandwidth: float
    units: int
    tdp: float | None
    memory_type: str
    mobile: bool = False
    memory: float | None = None
    compute_full: float = 0.0  # compute with GeForce boards at their FP16-accumulate tensor rate
    line: tuple[str, int] | None = None  # vendor line and generation (``GENERATIONS``); None: not compared


@dataclass(frozen=True)
class PublishedOrder:
    """A measured training ordering of two cards that a public benchmark states and the spec sheets
    contradict: the estimate of ``card`` is never shown above ``not_above``'s figure."""

    card: str
    not_above: str
    source: str


# Across vendors the spec sheets say least: the MI300X has 1.3x the H100 SXM5's dense FP16 matrix rate
# and 1.6x its bandwidth on paper, and trains slower than it in published measurements.
PUBLISHED_ORDERS: tuple[PublishedOrder, ...] = (
    PublishedOrder(
        "AMD Instinct MI300X", "H100 SXM5 80 GB",
        "SemiAnalysis, 'MI300X vs H100 vs H200 Benchmark Part 1: Training' (2024-12-22): GEMM and "
        "end-to-end training throughput below the H100 SXM5's on the public ROCm release"),
)


def _specs(features: Features, precision: Precision) -> _Specs | None:
    chip = as_text(features.get("chip")).strip().lower()
    compute = compute_tflops(features, precision)
    bandwidth = spec_number(features, "bandwidth_gb_s")
    if not chip or compute is None or bandwidth is None:
        return None
    units = spec_number(features, "tensor_cores")
    return _Specs(chip=f"{as_text(features.get('vendor')).lower()}/{chip}", family=family_of(features),
                  compute=compute, bandwidth=bandwidth, units=int(units or 0), tdp=spec_number(features, "tdp_w"),
                  memory_type=as_text(features.get("memory_type")).lower(),
                  mobile=as_text(features.get("segment")).lower() == "mobile",
                  memory=spec_number(features, "memory_gb"),
                  compute_full=_full_rate_compute(features, precision, compute),
                  line=_line(features))


def _full_rate_compute(features: Features, precision: Precision, compute: float) -> float:
    """The card's compute were GeForce tensor math at the professional boards' rate: FP16 with FP16
    accumulate, and TF32 at twice the rate NVIDIA states for GeForce boards."""
    half16 = compute_tflops(features, "fp16")
    full16 = compute_tflops(features, "fp16", full_rate_geforce=True)
    if not half16 or not full16 or full16 <= half16:
        return compute
    if precision == "fp16":
        return full16
    rate = matrix_rate(as_text(features.get("vendor")), as_text(features.get("architecture")),
                       as_text(features.get("model")))
    has_tf32 = rate is not None and rate.flops_per_clock >= 256  # Ampere and later (``compute_tflops``)
    return max(compute, full16 / 2) if has_tf32 else compute


# Architectures in order within each vendor's line of deep-learning cards: a card of a later entry is of a
# newer generation. GCN 5 (Vega) leads AMD's datacenter line into CDNA; RDNA is a line of its own.
GENERATIONS: dict[tuple[str, str], tuple[str, int]] = {
    **{("nvidia", a): ("nvidia", i) for i, arches in enumerate((
        ("maxwell 2.0",), ("pascal",), ("volta",), ("turing",), ("ampere",), ("ada lovelace",), ("hopper",),
        ("blackwell", "blackwell 2.0", "blackwell ultra"))) for a in arches},
    **{("amd", a): ("amd-cdna", i) for i, arches in enumerate((
        ("gcn 5.0", "gcn 5.1"), ("cdna 1.0",), ("cdna 2.0",), ("cdna 3.0",), ("cdna 4.0",))) for a in arches},
    **{("amd", a): ("amd-rdna", i) for i, a in enumerate(("rdna 1.0", "rdna 2.0", "rdna 3.0", "rdna 4.0"))},
    ("intel", "xe-hpg"): ("intel", 0), ("intel", "xe2-hpg"): ("intel", 1),
}
# Desktop, workstation and datacenter boards: laptops' power limits and integrated parts are their own.
COMPARED_SEGMENTS = ("desktop", "workstation", "datacenter")
# "Clearly" more compute: past what boost clocks and spec databases vary by, so never a close call.
CLEAR_MARGIN = 1.15
# Across chips the spec sheets' compute is a boost clock's; what training sustains is the power limit's.
# A card outclasses another only with at least this share of its board power: a 300 W RTX PRO 6000
# Max-Q's spec compute says nothing of its order against a 575 W RTX 5090.
POWER_SHARE = 0.8
# A bounded card's interval spans at most this factor either side of its figure: the sibling that
# bounds it anchors its level, so the estimate's own spread (which for a family with few measured
# cards reaches to 0) no longer applies in full.
BOUNDED_SPREAD = 1.5


def _line(features: Features) -> tuple[str, int] | None:
    if as_text(features.get("segment")).lower() not in COMPARED_SEGMENTS:
        return None
    return GENERATIONS.get((as_text(features.get("vendor")).lower(), as_text(features.get("architecture")).lower()))


def clearly_dominates(big: _Specs, small: _Specs) -> bool:
    """``big`` outclasses ``small`` beyond a close call, on any chips: same vendor line, the same or a newer
    generation, at least ``CLEAR_MARGIN`` times its compute whichever rate GeForce tensor math runs at
    (the halved FP32-accumulate rate or the full one: a professional board's full rate against a GeForce
    board's halved one is no clear lead), at least its bandwidth and memory, and at least ``POWER_SHARE``
    of its board power."""
    return (big.line is not None and small.line is not None and big.line[0] == small.line[0]
            and big.line[1] >= small.line[1]
            and big.compute >= small.compute * CLEAR_MARGIN and big.compute_full >= small.compute_full * CLEAR_MARGIN
            and big.bandwidth * SAME >= small.bandwidth
            and (big.memory is None or small.memory is None or big.memory * SAME >= small.memory)
            and (big.tdp is None or small.tdp is None or big.tdp >= small.tdp * POWER_SHARE))


def _power_class(big: _Specs, small: _Specs) -> bool:
    """``big`` has at least ``POWER_SHARE`` of ``small``'s board power (or either's is unknown)."""
    return big.tdp is None or small.tdp is None or big.tdp >= small.tdp * POWER_SHARE


def dominates(big: _Specs, small: _Specs) -> bool:
    """``big`` has at least ``small``'s compute and bandwidth, on the same chip, in its power class: a
    300 W A100X's spec-sheet boost clock does not put it above the 400 W A100 SXM4."""
    return (big.chip == small.chip and big.family == small.family
            and big.compute * SAME >= small.compute and big.bandwidth * SAME >= small.bandwidth
            and _power_class(big, small))


def power_twin_above(big: _Specs, small: _Specs) -> bool:
    """``big`` is ``small``'s full-power twin: same chip, same tensor units and memory type, a higher
    board power and either more compute or, whatever the spec sheets' boost clocks say, a power class
    above (``POWER_SHARE``): the power limit sets the clock training sustains."""
    return (big.chip == small.chip and big.family == small.family and big.units > 0 and big.units == small.units
            and bool(big.memory_type) and big.memory_type == small.memory_type
            and big.tdp is not None and small.tdp is not None and big.tdp > small.tdp
            and (big.compute > small.compute * SAME or big.tdp * POWER_SHARE >= small.tdp)
            and big.bandwidth >= small.bandwidth * TWIN_BANDWIDTH_SHARE)


def flagged_above(sibling: _Specs, card: _Specs) -> bool:
    """``estimate_coverage``'s rule: a measured card of the family with at least the card's compute and
    bandwidth, each within ``SPEC_SLACK`` -- unless the card has at least the sibling's compute and
    bandwidth: then the sibling bounds it from below (``family_below``), never from above (a B300 is
    not held under the B200, nor an MI60 under the MI50 it has more compute units than); nor where the
    sibling has less than ``POWER_SHARE`` of its board power (a 70 W T4's spec compute is not what it
    sustains, so it says nothing of a 160 W card's)."""
    return (sibling.family == card.family and card.compute <= sibling.compute * SPEC_SLACK
            and card.bandwidth <= sibling.bandwidth * SPEC_SLACK and not family_below(sibling, card)
            and _power_class(sibling, card))


def family_below(sibling: _Specs, card: _Specs) -> bool:
    """``card`` has at least ``sibling``'s compute and bandwidth, in one family (any chip of it) and at
    least ``POWER_SHARE`` of its board power: never shown below it."""
    return (sibling.family == card.family and card.compute * SAME >= sibling.compute
            and card.bandwidth * SAME >= sibling.bandwidth
            and (card.tdp is None or sibling.tdp is None or card.tdp >= sibling.tdp * POWER_SHARE))


def same_resources(a: _Specs, b: _Specs) -> bool:
    """One family, the same compute and bandwidth (within ``SAME``): the model's gap between the two
    comes from features training barely sees (memory size, a board power above the other's)."""
    return (a.family == b.family and a.compute * SAME >= b.compute and b.compute * SAME >= a.compute
            and a.bandwidth * SAME >= b.bandwidth and b.bandwidth * SAME >= a.bandwidth)


# Bounds from above whose level is the sibling's figure times their factor (a power-limited twin's, and
# the model's gap above a measured sibling the card outclasses); the others cap at the sibling's figure.
SAME_CHIP_ABOVE = "same chip with at least its compute and bandwidth"
POWER_TWIN = "same chip and tensor units at a higher board power"
PUBLISHED = "measured faster in published training results"
ABOVE_MEASURED = "same chip, measured, with less compute and bandwidth: the model's gap above it"
_SCALED = (POWER_TWIN, ABOVE_MEASURED)
SAME_CHIP_BELOW = "same chip, it has at least that card's compute and bandwidth"
SAME_SPECS = "same chip, measured, with the same compute and bandwidth"
FLAGGED = "measured, of its family, with at least its compute and bandwidth within the spec sheets' slack"
FAMILY_BELOW = "measured, of its family, it has at least that card's compute, bandwidth and board power"
SAME_RESOURCES = "measured, of its family, with the same compute and bandwidth"
SAME_RESOURCES_ESTIMATED = "another chip of its family with the same compute, bandwidth and power class"
OUTCLASSES = ("it outclasses that card: the same or a newer generation of its vendor's line with at least "
              f"{CLEAR_MARGIN:.2f}x its compute and at least its bandwidth and memory")
OUTCLASSED = ("that card outclasses it: the same or a newer generation of its vendor's line with at least "
              f"{CLEAR_MARGIN:.2f}x its compute and at least its bandwidth and memory")


def _cap(value: float, why: str, factor: float) -> float:
    """Where a bound from above holds the card: the sibling's figure, scaled for the scaled kinds."""
    return value * factor if why in _SCALED else value


def _trigger(value: float, why: str, factor: float) -> float:
    """Above what figure a bound from above binds: the sibling's own, or for the model's gap above a
    measured sibling, the sibling's times that gap."""
    return value * factor if why == ABOVE_MEASURED else value


def _hold_the_orders(value: dict[str, float], moving: list[str], uppers: Mapping[str, list[tuple[str, str, float, int]]],
                     lowers: Mapping[str, list[tuple[str, str, float, int]]], measured: set[str]) -> None:
    """The orders themselves have the last word, level: the tiers place a card by the model's gap to each
    sibling and a higher tier's bound overrides a lower one's, which can leave a card below one it
    outclasses (a chip's measured card holding it down while an estimate of another chip sits above).
    Here every estimate is raised to each card it outclasses (same chip or across chips) and lowered to
    each measured card of its chip, or measured card that clearly outclasses it, that bounds it from
    above; a measured card wins a conflict. In place, on ``value``."""
    floors = {m: [o for o, _, _, _ in lowers.get(m, [])] for m in moving}
    ceilings = {m: [o for o, why, _, _ in uppers.get(m, []) if o in measured
                    and (why in (SAME_CHIP_ABOVE, OUTCLASSED) or why.startswith(PUBLISHED))] for m in moving}
    for _ in range(MAX_PASSES):
        changed = False
        for model in moving:
            new = min([max([value[model], *(value[o] for o in floors[model])]), *(value[o] for o in ceilings[model])])
            if abs(new - value[model]) > 1e-12:
                value[model] = new
                changed = True
        if not changed:
            break


def bound_estimates(shown: Mapping[str, Shown], measured: set[str], features: Mapping[str, Features],
                    precision: Precision, estimates: Mapping[str, float] | None = None) -> dict[str, Bounded]:
    """The estimated cards (in ``shown``, not in ``measured``) that a sibling's figure moves, each with
    its bounded figure, interval and the reason. ``shown`` holds every card's shown figure: measured
    cards' weighted figures and the other cards' estimates. ``estimates`` (every card's own spec
    estimate, measured cards' too) keep the model's judgement of the pair: a bound from above is the
    sibling's figure times the smaller of 1 and the ratio of the two cards' estimates (a power-limited
    twin's, of their compute), from below times the larger, so a card the specs put below its sibling
    stays below it rather than level."""
    est = estimates or {}

    def ratio(model: str, other: str) -> float:
        a, b = est.get(model), est.get(other)
        return a / b if a and b and a > 0 and b > 0 else 1.0
    specs = {m: s for m in shown if m in features and (s := _specs(features[m], precision)) is not None}
    by_chip: dict[str, list[str]] = {}
    for model, s in specs.items():
        by_chip.setdefault(s.chip, []).append(model)
    # Flagged bounds reach across chips of one family (the P40 and the GTX 1080 Ti share GP102, a GTX
    # 1070 and the 1080 Ti only Pascal): the measured cards of each family, once.
    by_family: dict[str, list[str]] = {}
    for model, s in sorted(specs.items()):
        by_family.setdefault(s.family, []).append(model)
    measured_by_family: dict[str, list[str]] = {}
    compared_by_line: dict[str, list[str]] = {}
    for model, s in sorted(specs.items()):
        if s.line is not None:
            compared_by_line.setdefault(s.line[0], []).append(model)
    for model in measured:
        if model in specs:
            measured_by_family.setdefault(specs[model].family, []).append(model)

    # Each bound: sibling, why, factor on its figure, and its tier. Where bounds disagree the higher tier
    # wins: a same-chip sibling or full-power twin that is measured, or a published measured order (2), over a same-chip
    # sibling that is estimated (1), over a power-limited twin or a family sibling within the flag's slack
    # (0): measured evidence outranks another estimate, and strict dominance a looser rule.
    uppers: dict[str, list[tuple[str, str, float, int]]] = {}
    lowers: dict[str, list[tuple[str, str, float, int]]] = {}
    for model in sorted(specs):
        s = specs[model]
        if model in measured:
            continue
        def _contradicted(o: _Specs, other: str) -> bool:
            """A measured card that a measured card of its chip, which it outclasses, is measured above, where
            this card outclasses that one too (the V100 SXM2 16 GB, measured below the V100 PCIe 32 GB in
            another harness, against the V100 SXM2 32 GB): measurements that contradict each other bound
            the card from below by the higher, not from above by the lower."""
            return any(m != other and m != model and not specs[m].mobile  # a laptop's figure is its power limit's
                       and dominates(o, specs[m]) and dominates(s, specs[m])
                       and not dominates(specs[m], s) and shown[m].value > shown[other].value
                       for m in by_chip[s.chip] if m in measured)

        up: list[tuple[str, str, float, int]] = []
        down: list[tuple[str, str, float, int]] = []
        gaps: list[tuple[str, str, float, int]] = []
        for other in sorted(by_chip[s.chip]):
            if other == model:
                continue
            o = specs[other]
            if dominates(o, s) and other not in measured and dominates(s, o) and shown[other].value == shown[model].value:
                continue  # an estimated twin with the same figure moves with the card; capping each other would
                # hold both at their own estimate whatever bound lifts them
            if o.mobile and not s.mobile:
                pass  # a laptop part's boost clock is a spec sheet's, not what its power limit sustains
            elif dominates(o, s) and other in measured and _contradicted(o, other):
                pass  # measured below a measured sibling it outclasses: it holds no card above that one
            elif dominates(o, s):
                # Where it is also the card's full-power twin, the model's gap is at least their compute's:
                # a 250 W V100 PCIe is placed under the 300 W SXM2, not level with it.
                twin = s.compute / o.compute if power_twin_above(o, s) else 1.0
                up.append((other, SAME_CHIP_ABOVE,
                           min(1.0, ratio(model, other), twin), 2 if other in measured else 1))
            elif power_twin_above(o, s):
                # A measured full-power twin is measured evidence (tier 2): a power-limited card (the RTX PRO
                # 6000 Max-Q at 300 W) never rises above its 600 W twin's measured figure.
                up.append((other, POWER_TWIN, min(1.0, s.compute / o.compute), 2 if other in measured else 0))
            if (dominates(s, o) and dominates(o, s) and other in measured and not o.mobile and not s.mobile
                    and not any(m in measured and dominates(specs[m], s) and not dominates(s, specs[m])
                                and shown[m].value < shown[other].value for m in by_chip[s.chip])):
                # A measured twin's figure is its figure, unless a measured card above both is measured
                # below it (the V100 PCIe 32 GB over the SXM2 16 GB): then the higher power's card holds.
                down.append((other, SAME_SPECS, 1.0, 2))
            if dominates(s, o) and not dominates(o, s):
                down.append((other, SAME_CHIP_BELOW, max(1.0, ratio(model, other)), 2 if other in measured else 1))
                # A laptop's power limit is its own. Memory size aside: uncapped, an MI60 (64 compute units
                # to the measured MI50's 60, twice its memory) was shown at 3x the MI50.
                if other in measured and not o.mobile and not s.mobile:
                    gaps.append((other, ABOVE_MEASURED, max(1.0, ratio(model, other)), 2))
        ceiling = any(why == SAME_CHIP_ABOVE and o in measured for o, why, _, _ in up)
        if gaps and not ceiling:  # a measured sibling above places it already (an RTX 3080 Ti under the 3090); the loosest: measured siblings disagree as measurements do, and each one bounds from below
            up.append(max(gaps, key=lambda g: shown[g[0]].value * g[2]))
        if s.line is not None:
            for other in compared_by_line.get(s.line[0], []):
                o = specs[other]
                if other == model or (o.chip == s.chip and o.family == s.family):
                    continue  # the same-chip bounds above
                # A measured card bounds both ways; an estimated one only lifts the card that outclasses it:
                # two families' estimates that disagree meet at the higher, never drag a chain of cards down.
                # Tier 1: above the looser family flag, below what a measured card of the same chip says.
                if clearly_dominates(o, s) and other in measured:
                    up.append((other, OUTCLASSED, min(1.0, ratio(model, other)), 1))
                elif clearly_dominates(s, o):  # level at least: the model's ratio across two families would
                    # carry one family's measured residual up a chain of cards
                    down.append((other, OUTCLASSES, 1.0, 1))
        for other in sorted(measured_by_family.get(s.family, [])):
            o = specs[other]
            if other == model or (o.mobile and not s.mobile):
                continue
            if flagged_above(o, s):
                up.append((other, FLAGGED, min(1.0, ratio(model, other)), 0))
            elif family_below(o, s) and not (o.chip == s.chip and dominates(o, s)):
                down.append((other, FAMILY_BELOW, 1.0, 2))
                if same_resources(o, s):
                    up.append((other, SAME_RESOURCES, 1.0, 2))
        for other in by_family.get(s.family, []):
            o = specs[other]
            if (other != model and other not in measured and o.chip != s.chip and o.mobile == s.mobile
                    and same_resources(o, s) and _power_class(o, s) and _power_class(s, o)):
                # The same compute and bandwidth on another chip of the family (an RTX 3070 Ti built on
                # GA102): never above it; the pair meets at the lower of the two estimates.
                up.append((other, SAME_RESOURCES_ESTIMATED, 1.0, 1))
        for order in PUBLISHED_ORDERS:
            if order.card == model and order.not_above in shown:
                up.append((order.not_above, f"{PUBLISHED}: {order.source}",
                           min(1.0, ratio(model, order.not_above)), 2))
        if up:
            uppers[model] = up
        if down:
            lowers[model] = down

    value = {m: shown[m].value for m in shown}
    moving = sorted(set(uppers) | set(lowers))
    for _ in range(MAX_PASSES):
        changed = False
        for model in moving:
            raw = shown[model].value
            new = raw
            for tier in (0, 1, 2):
                # A bound binds where the estimate, or the figure the lower tiers left, breaks the order.
                # The model's own gap between the two cards places the card (``f``), within what the
                # binding siblings' own figures allow (a power-limited twin's bound is its scaled figure).
                ups = [(value[o] * f, _cap(value[o], why, f))
                       for o, why, f, t in uppers.get(model, [])
                       if t == tier and max(raw, new) > _trigger(value[o], why, f)]
                tentative = min([new, *(p for p, _ in ups)])  # where this tier's caps alone would put it
                downs = [(value[o] * f, value[o]) for o, _, f, t in lowers.get(model, [])
                         if t == tier and min(raw, new, tentative) < value[o]]
                if not ups and not downs:
                    continue
                preferred = min(max([new, *(p for p, _ in downs)]), min((p for p, _ in ups), default=math.inf))
                low = max((b for _, b in downs), default=-math.inf)
                high = min((b for _, b in ups), default=math.inf)
                new = high if low > high else min(max(preferred, low), high)  # an upper bound wins a conflict
                # A bound from below never lifts the card past a sibling of its own tier that bounds it from above.
                caps = [_cap(value[o], why, f) for o, why, f, t in uppers.get(model, []) if t == tier]
                new = min([new, *caps])
            if abs(new - value[model]) > 1e-12:
                value[model] = new
                changed = True
        if not changed:
            break
    _hold_the_orders(value, moving, uppers, lowers, measured)

    out: dict[str, Bounded] = {}
    for model in moving:
        old = shown[model]
        new = value[model]
        if abs(new - old.value) <= 1e-9 * max(1.0, old.value):
            within = _within_measured(new, old, value, shown, measured, uppers.get(model, []), lowers.get(model, []))
            if within is not None:
                out[model] = within
            continue
        if new < old.value:
            low, high, note = _held_down(model, old, new, value, shown, uppers[model], lowers.get(model, []))
        else:
            low, high, note = _held_up(model, old, new, value, lowers[model])
        spread = Shown(new, max(low, new / BOUNDED_SPREAD), min(high, new * BOUNDED_SPREAD))
        cut = _within_measured(new, spread, value, shown, measured, uppers.get(model, []), lowers.get(model, []))
        out[model] = Bounded(value=new, low=cut.low if cut else spread.low, high=cut.high if cut else spread.high,
                             note=note)
    return out


# Bounds a measured sibling sets whatever the estimate: it is never above the first kinds' figures, never
# below the second's.
_MEASURED_CEILINGS = (SAME_CHIP_ABOVE, POWER_TWIN, SAME_RESOURCES)
_MEASURED_FLOORS = (SAME_CHIP_BELOW, SAME_SPECS, FAMILY_BELOW)


def _within_measured(figure: float, old: Shown, value: Mapping[str, float], shown: Mapping[str, Shown],
                     measured: set[str], uppers: list[tuple[str, str, float, int]],
                     lowers: list[tuple[str, str, float, int]]) -> Bounded | None:
    """An estimate no bound moved, its interval cut to what its measured siblings allow: its upper end
    not above a measured card it is never shown above (the 300 W A100X's not above the 400 W A100 SXM4's
    figure), its lower end not under that of one it is never shown below. None where nothing cuts it."""
    eps = 1e-9 * max(1.0, figure)
    ceiling = min((_cap(value[o], why, f) for o, why, f, _ in uppers
                   if o in measured and why in _MEASURED_CEILINGS and _cap(value[o], why, f) >= figure - eps),
                  default=math.inf)
    floor = max((value[o] * shown[o].low / shown[o].value for o, why, _, _ in lowers
                 if o in measured and why in _MEASURED_FLOORS and value[o] <= figure + eps and shown[o].value > 0),
                default=-math.inf)
    high, low = min(old.high, max(figure, ceiling)), max(old.low, min(figure, floor))
    if high >= old.high - eps and low <= old.low + eps:
        return None
    return Bounded(value=figure, low=low, high=high, note="")


def _placed(new: float, old: Shown, value: Mapping[str, float], bounds: list[tuple[str, str, float, int]]) -> str:
    """The words for a figure that no sibling's own figure binds: placed at a sibling's figure times the
    model's gap between the two, or else moved with its siblings through a chain of orders."""
    by, why, f, _ = min(bounds, key=lambda p: abs(value[p[0]] * p[2] - new))
    if abs(value[by] * f - new) <= 1e-6 * max(1.0, new):
        return (f"placed at {f:.2f}x the {by} ({value[by]:.3f}; {why}), the model's gap between the two: "
                f"the estimate was {old.value:.3f}")
    by, why, _, _ = min(bounds, key=lambda p: abs(value[p[0]] - new))
    return (f"held at {new:.3f} with its siblings, whose own bounds moved (the {by}, {value[by]:.3f}; {why}): "
            f"the estimate was {old.value:.3f}")


def _held_down(model: str, old: Shown, new: float, value: Mapping[str, float], shown: Mapping[str, Shown],
               uppers: list[tuple[str, str, float, int]],
               lowers: list[tuple[str, str, float, int]]) -> tuple[float, float, str]:
    """The interval and the words for a figure held down: the bound cited is one the estimate is above
    (its words say so) and the figure respects, the nearest to the figure."""
    eps = 1e-9 * max(1.0, new)
    binding = [b for b in uppers if _trigger(value[b[0]], b[1], b[2]) < old.value - eps
               and _cap(value[b[0]], b[1], b[2]) >= new - eps]
    # The interval's upper end: the tightest bound from above that the figure respects.
    bound = min((_cap(value[o], w, g) for o, w, g, _ in uppers if _cap(value[o], w, g) >= new - eps),
                default=math.inf)
    high = max(new, min(old.high, bound))
    # Its lower end is no lower than that of a card it is never shown below (a B300 under the B200's).
    floor = max((value[o] * shown[o].low / shown[o].value for o, _, _, _ in lowers
                 if value[o] <= new + eps and shown[o].value > 0), default=-math.inf)
    low = min(new, max(old.low * new / old.value, floor))
    if not binding:  # placed by the model's gap to a sibling, or moved through a chain of orders
        return low, high, _placed(new, old, value, uppers)
    by, why, f, _ = min(binding, key=lambda p: abs(_cap(value[p[0]], p[1], p[2]) - new))
    where = (f"at {old.value / value[by]:.2f}x that card, beyond the model's gap of {f:.2f}x"
             if why == ABOVE_MEASURED else "above that card")
    return low, high, f"bounded by the {by} ({value[by]:.3f}; {why}): the estimate {old.value:.3f} would put it {where}"


def _held_up(model: str, old: Shown, new: float, value: Mapping[str, float],
             lowers: list[tuple[str, str, float, int]]) -> tuple[float, float, str]:
    """The interval and the words for a figure held up: the bound cited is one the estimate is below and
    the figure respects, the nearest to the figure."""
    eps = 1e-9 * max(1.0, new)
    binding = [b for b in lowers if value[b[0]] > old.value + eps and value[b[0]] <= new + eps]
    floor = max((value[o] for o, _, _, _ in lowers if value[o] <= new + eps), default=-math.inf)
    low = min(new, max(old.low * new / old.value, floor))
    high = old.high * new / old.value
    if not binding:
        return low, high, _placed(new, old, value, lowers)
    by, why, _, _ = min(binding, key=lambda p: abs(value[p[0]] - new))
    return low, high, (f"bounded by the {by} ({value[by]:.3f}; {why}): the estimate {old.value:.3f} would put it "
                       "below that card")
