"""A card's shown figure: every piece of evidence about it, each weighted by how far it can be trusted.

The method was fixed before its results were computed (docs/performance-log.md, "Precision-weighted
figures, and estimates on the reference's scale"; described in docs/performance.md):

- Evidence is each source's figure of the card (Lambda as one source, each harness, and the spec
  estimate: for a measured card its held-out prediction, which never saw the card).
- A source's reliability is the variance of its log error, read from how it disagrees with the
  other sources on the cards they share: with independent errors the variance of ``log a - log b``
  is ``s_a^2 + s_b^2``, so the pairwise disagreements (robust: from the median absolute log ratio)
  give every source's own variance by non-negative least squares ("three-cornered hat").
- The figure is the inverse-variance weighted mean in log space; a figure far from the rest of its
  card's evidence (leave-it-out z-score above ``OUTLIER_Z``) is down-weighted and named; the
  interval is ``INTERVAL`` wide, widened by the Birge ratio where the evidence disagrees more than
  its variances say.

Pure functions, no I/O: ``warehouse/perf_weighted.py`` reads the stored figures and writes these.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy is imported where it computes: `rank` prints these figures' words, not numpy's work
    import numpy as np

WEIGHTED = "weighted"  # the stored source of a shown figure that combines several pieces of evidence
ESTIMATE = "estimate"
LAMBDA = "lambda"  # every Lambda file is one source: a card has one Lambda headline figure

INTERVAL = 0.80  # the interval every shown figure carries
Z_INTERVAL = 1.2815515655446004  # the standard normal's 90th percentile: the 80% interval's half-width
OUTLIER_Z = 2.5  # a figure further than this from the rest of its card's evidence is down-weighted
MIN_SIGMA = 0.03  # no source is trusted to better than 3% (log)
MIN_SHARED = 3  # cards two sources must share for their disagreement to count
MIN_SHARED_TOTAL = 8  # shared cards, over all its pairs, below which a source is trusted no better than the median
ONE_WORKLOAD_FACTOR = 2.0  # variance multiplier of a figure resting on one workload
MAD_TO_SIGMA = 0.6744897501960817  # median |x| of a standard normal


@dataclass(frozen=True)
class Evidence:
    """One source's figure of one card: ``source`` is the reliability group (``lambda``, a harness,
    ``estimate``), ``label`` the stored source name shown in the method text; ``factor`` multiplies
    the source's variance (a low-confidence estimate)."""

    source: str
    value: float
    label: str = ""
    workloads: int = 0
    factor: float = 1.0
    rocm: bool = False

    @property
    def name(self) -> str:
        return self.label or self.source


@dataclass(frozen=True)
class Weighted:
    """A card's figure from its evidence: value and its 80% interval, each piece's share of the
    weight, and the pieces down-weighted as outliers (with their z-scores)."""

    value: float
    low: float
    high: float
    sigma: float  # log standard error of the value, after down-weighting and the Birge ratio
    shares: tuple[tuple[Evidence, float], ...]
    outliers: tuple[tuple[Evidence, float], ...] = ()


def overlap(a_low: float, a_high: float, b_low: float, b_high: float) -> bool:
    """Whether two intervals share any value: two figures whose intervals overlap cannot be told
    apart by the evidence behind them."""
    return max(a_low, b_low) <= min(a_high, b_high)


def interval(value: float, sigma: float) -> tuple[float, float]:
    """The 80% interval around ``value`` for a log standard error ``sigma``."""
    return value * math.exp(-Z_INTERVAL * sigma), value * math.exp(Z_INTERVAL * sigma)


def pair_variances(cards: Mapping[str, Sequence[Evidence]], reference: str) -> dict[tuple[str, str], tuple[float, int]]:
    """Per pair of sources sharing at least ``MIN_SHARED`` cards (the reference left out: every
    source gives it 1.0 by definition): the robust variance of their log disagreement and how many
    cards it rests on."""
    gaps: dict[tuple[str, str], list[float]] = {}
    for model, evidence in cards.items():
        if model == reference:
            continue
        by_source = {e.source: e.value for e in evidence}
        for a, b in itertools.combinations(sorted(by_source), 2):
            gaps.setdefault((a, b), []).append(math.log(by_source[a] / by_source[b]))
    out = {}
    for pair, g in gaps.items():
        if len(g) >= MIN_SHARED:
            middle = statistics.median(g)
            out[pair] = ((statistics.median(abs(x - middle) for x in g) / MAD_TO_SIGMA) ** 2, len(g))
    return out


def reliabilities(cards: Mapping[str, Sequence[Evidence]], reference: str) -> dict[str, float]:
    """Each source's log error standard deviation, from its disagreements with the others.

    Non-negative least squares over the variances above the floor, ``v_ab - 2 floor^2 = t_a + t_b``
    with ``t >= 0``, each pair weighted by its shared cards; solved exactly by trying every set of
    free sources (a handful of sources). A source in no pair gets the largest deviation found."""
    import numpy as np

    sources = sorted({e.source for ev in cards.values() for e in ev})
    pairs = pair_variances(cards, reference)
    linked = sorted({s for pair in pairs for s in pair})
    floor = MIN_SIGMA ** 2
    out: dict[str, float] = {}
    if linked:
        index = {s: i for i, s in enumerate(linked)}
        a = np.zeros((len(pairs), len(linked)))
        y = np.zeros(len(pairs))
        w = np.zeros(len(pairs))
        for k, ((s1, s2), (v, n)) in enumerate(sorted(pairs.items())):
            a[k, index[s1]] = a[k, index[s2]] = 1.0
            y[k] = v - 2 * floor
            w[k] = n
        root = np.sqrt(w)
        best: tuple[float, np.ndarray] | None = None
        for size in range(len(linked) + 1):
            for free in itertools.combinations(range(len(linked)), size):
                t = np.zeros(len(linked))
                if free:
                    cols = list(free)
                    sol, *_ = np.linalg.lstsq(a[:, cols] * root[:, None], y * root, rcond=None)
                    if (sol < -1e-12).any():
                        continue
                    t[cols] = np.maximum(sol, 0.0)
                cost = float((w * (a @ t - y) ** 2).sum())
                if best is None or cost < best[0] - 1e-15:
                    best = (cost, t)
        assert best is not None
        out = {s: math.sqrt(floor + best[1][index[s]]) for s in linked}
        # A deviation read from a few shared cards says little: such a source is trusted no better
        # than the median source.
        shared = {s: sum(1 for m, ev in cards.items() if m != reference and len({e.source for e in ev}) > 1
                         and any(e.source == s for e in ev)) for s in linked}
        well = [v for s, v in out.items() if shared[s] >= MIN_SHARED_TOTAL]
        if well:
            middle = statistics.median(well)
            out = {s: max(v, middle) if shared[s] < MIN_SHARED_TOTAL else v for s, v in out.items()}
    widest = max(out.values(), default=MIN_SIGMA)
    return {s: out.get(s, widest) for s in sources}


def _variance(e: Evidence, sigmas: Mapping[str, float]) -> float:
    v = sigmas[e.source] ** 2 * e.factor ** 2
    return v * ONE_WORKLOAD_FACTOR if e.workloads == 1 else v


def weighted_figure(evidence: Sequence[Evidence], sigmas: Mapping[str, float]) -> Weighted:
    """The inverse-variance weighted mean of one card's evidence in log space, with its interval."""
    import numpy as np

    if not evidence:
        raise ValueError("no evidence to weigh")
    logs = np.array([math.log(e.value) for e in evidence])
    var = np.array([_variance(e, sigmas) for e in evidence])
    outliers: list[tuple[Evidence, float]] = []
    flagged: set[int] = set()
    while len(evidence) >= 2:
        z = _leave_out_z(logs, var)
        if len(evidence) == 2:  # two pieces apart: neither can be singled out, both are down-weighted
            candidates = [i for i in range(2) if abs(z[i]) > OUTLIER_Z]
        else:  # the furthest first, then the rest again against the others so weighted (no masking)
            far = int(np.argmax(np.where([i in flagged for i in range(len(evidence))], 0.0, np.abs(z))))
            candidates = [far] if abs(z[far]) > OUTLIER_Z and far not in flagged else []
        if not candidates:
            break
        for i in candidates:
            outliers.append((evidence[i], float(z[i])))
            flagged.add(i)
            var[i] *= (abs(z[i]) / OUTLIER_Z) ** 2
        if len(evidence) == 2:
            break
    w = 1 / var
    mean = float((w * logs).sum() / w.sum())
    sigma2 = 1 / float(w.sum())
    if len(evidence) >= 2:
        birge = float((w * (logs - mean) ** 2).sum()) / (len(evidence) - 1)
        sigma2 *= max(1.0, birge)
    sigma = math.sqrt(sigma2)
    value = math.exp(mean)
    low, high = interval(value, sigma)
    shares = tuple((e, float(x / w.sum())) for e, x in zip(evidence, w, strict=True))
    return Weighted(value=value, low=low, high=high, sigma=sigma, shares=shares, outliers=tuple(outliers))


def _leave_out_z(logs: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Each piece's distance from the weighted mean of the others, in standard deviations of the difference."""
    import numpy as np

    z = np.zeros(len(logs))
    for i in range(len(logs)):
        rest = np.arange(len(logs)) != i
        wr = 1 / var[rest]
        z[i] = (logs[i] - float((wr * logs[rest]).sum() / wr.sum())) / math.sqrt(var[i] + 1 / wr.sum())
    return z


def describe(fig: Weighted) -> str:
    """The method text of a weighted figure: every piece with its value and share, the outliers."""
    parts = ", ".join(f"{e.name} {e.value:.3f} ({share:.0%})" for e, share in fig.shares)
    text = (f"weighted by each source's agreement with the others: {parts}; "
            f"{INTERVAL:.0%} interval {fig.low:.3f}-{fig.high:.3f}")
    if fig.outliers:
        text += "; down-weighted, far outside its source's usual agreement: " + ", ".join(
            f"{e.name} {e.value:.3f} ({abs(z):.1f} sigma from the other evidence)" for e, z in fig.outliers)
    return text


def perf_range_words(row: Mapping[str, object]) -> str:
    """A ranking row's 80% interval of relative performance as a table shows it ("-" without one)."""
    low, high = row.get("perf_low"), row.get("perf_high")
    if not isinstance(low, (int, float)) or not isinstance(high, (int, float)):
        return "-"
    return f"{low:.2f}-{high:.2f}"


def spread(row: Mapping[str, object]) -> float | None:
    """A figure's 80% interval's wider half-width, a share of the figure: the one "±" every table shows
    (an interval even in log terms is wider above, and a figure held down by a sibling's bound sits at
    its top, wide below: never "+-0%"); None without an interval."""
    value, high, low = row.get("relative_perf"), row.get("perf_high"), row.get("perf_low")
    if not isinstance(value, (int, float)) or not isinstance(high, (int, float)) or value <= 0:
        return None
    below = 1 - low / value if isinstance(low, (int, float)) else 0.0
    return max(high / value - 1, below)


def perf_with_spread(row: Mapping[str, object]) -> str:
    """A ranking row's relative performance with its ``spread``, as the ranking table shows it in one
    narrow cell ("0.685 +-15%")."""
    value = row.get("relative_perf")
    if not isinstance(value, (int, float)):
        return "-"
    half = spread(row)
    return f"{value:.3f}" if half is None else f"{value:.3f} ±{half:.0%}"


def per_dollar_interval(row: Mapping[str, object]) -> tuple[float, float] | None:
    """A ranking row's interval of performance per dollar: its performance interval over its price."""
    low, high, price = row.get("perf_low"), row.get("perf_high"), row.get("price_usd")
    if not all(isinstance(x, (int, float)) for x in (low, high, price)) or not price:
        return None
    return float(low) / float(price), float(high) / float(price)  # type: ignore[arg-type]


def adjacent_within_interval(rows: Sequence[Mapping[str, object]]) -> list[tuple[Mapping[str, object], Mapping[str, object]]]:
    """Consecutive ranking rows whose performance-per-dollar intervals overlap: picks whose order the
    evidence behind their figures cannot settle."""
    out = []
    for a, b in itertools.pairwise(rows):
        ia, ib = per_dollar_interval(a), per_dollar_interval(b)
        if ia is not None and ib is not None and overlap(*ia, *ib):
            out.append((a, b))
    return out


def close_runs_words(pairs: Sequence[tuple[Mapping[str, object], Mapping[str, object]]]) -> str:
    """Adjacent close pairs as runs of shown ranks: "#1 and #2", "#3 to #6 (each with the next)"."""
    def place(row: Mapping[str, object]) -> object:
        return row.get("rank_shown", row.get("rank"))

    runs: list[list[object]] = []
    for a, b in pairs:
        if runs and runs[-1][-1] == place(a):
            runs[-1].append(place(b))
        else:
            runs.append([place(a), place(b)])
    return ", ".join(f"#{r[0]} and #{r[1]}" if len(r) == 2 else f"#{r[0]} to #{r[-1]} (each with the next)"
                     for r in runs)
