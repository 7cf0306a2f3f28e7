"""How much each measured figure counts in the spec estimate's fit: a figure the model cannot reach from
the other cards counts less, by the rule the shown figures already use for evidence that disagrees.

A measured figure is the truth the per-workload roofline is fitted to, but some figures are far from any
spec-based account of the card: one harness's single ROCm run (the Radeon Instinct MI50 at a tenth of an
RTX 3090 at fp16), the RTX 4060 Ti 16 GB at 0.79 of an RTX 3090. Least squares gives such a figure the
pull of a careful one, and the terms every card shares (the scale, the family offsets, the workloads'
compute shares) move toward it, so the cards around it are estimated worse. The fit is therefore robust,
in two stages (one step of iteratively reweighted least squares):

1. The unweighted fit, each card predicted without its own figures: its held-out log residual ``e``
   (the leave-one-card-out that chooses the model form computes exactly these). Held out, never a fit's
   own residual: a card whose figure brings workloads no other card ran is fitted almost exactly by
   those workloads' own compute shares and would look perfect.
2. ``z = (e - median e) / s`` with ``s`` the residuals' robust deviation (``MAD / 0.6745``, at least
   ``weighted.MIN_SIGMA``, 3 %: no figure is held to a closer fit than a source is trusted); a figure with
   ``|z|`` above ``weighted.OUTLIER_Z`` (2.5) has its variance multiplied by ``(z / 2.5)^2``, so it weighs
   ``(2.5 / z)^2``: the very rule by which a card's shown figure down-weighs a piece of its evidence far
   from the rest (``models/perf/weighted.py``). Every other figure weighs 1, as before. The weighted fit
   is the estimate.

Lambda's figures are never down-weighted (``is_lambda``; a card whose figure has a Lambda part keeps
weight 1): ten workloads a card from one harness, the measurement every other source agrees with best
(docs/performance.md, "Precision-weighted figures"), so a Lambda card the model misses is the model's
miss to show, not a measurement to discount. (Decided on seeing that down-weighting Lambda's own cards,
on Lambda's tables alone, made their cross-validation worse: docs/performance-log.md, "A robust fit".)

Nothing is dropped: a down-weighted card still counts, is still predicted and still scored. Only the
cards being fitted enter, so in the nested cross-validation a held-out card's figure weighs no other
card (``workload._loocv`` reads the weights from each fold's own inner residuals). Pure functions.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping

from gpuvalue.models.perf.weighted import MAD_TO_SIGMA, MIN_SIGMA, OUTLIER_Z

MIN_CARDS = 4  # held-out residuals below which no deviation is read and every figure weighs 1


def outlier_weights(residuals: Mapping[str, float]) -> dict[str, float]:
    """Each card's weight in the fit from its held-out log residual (module doc): 1, or ``(2.5 / z)^2``
    beyond ``OUTLIER_Z``. Empty (every figure 1) with fewer than ``MIN_CARDS`` residuals."""
    if len(residuals) < MIN_CARDS:
        return {}
    middle = statistics.median(residuals.values())
    scale = max(statistics.median(abs(e - middle) for e in residuals.values()) / MAD_TO_SIGMA, MIN_SIGMA)
    out = {}
    for model, e in residuals.items():
        z = abs(e - middle) / scale
        out[model] = 1.0 if z <= OUTLIER_Z else (OUTLIER_Z / z) ** 2
    return out


def is_lambda(workload: str) -> bool:
    """Whether a workload key ("source/column") is one of Lambda's tables."""
    return workload.startswith("lambda-")
