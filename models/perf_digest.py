"""A digest of everything the spec estimate's cross-validated error depends on.

The nested cross-validation behind each estimate's uncertainty is most of the estimate
stage's time, and its result changes only when the measured figures, the training cards'
specs or the model's code change. Keying a stored result by this digest lets a daily run
reuse it and recompute exactly when one of those changes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from importlib import resources

from gpuvalue.models.perf_estimate import Features, training_points
from gpuvalue.models.perf_measured import WorkloadRatio
from gpuvalue.models.records import PerfFigure, Precision

# The modules whose code decides the fit and its cross-validation: editing any of them
# changes the digest, so a stored error never outlives the code that computed it.
MODEL_MODULES = ("perf_estimate.py", "perf_workload.py", "arch_tables.py")


def model_code_fingerprint() -> str:
    h = hashlib.sha256()
    for name in MODEL_MODULES:
        h.update(name.encode())
        h.update(resources.files("gpuvalue.models").joinpath(name).read_bytes())
    return h.hexdigest()


def estimate_inputs_digest(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    per_workload: Sequence[WorkloadRatio] = (),
) -> str:
    """sha256 over the training figures of ``precision`` (as ``training_points`` selects them),
    the specs of those cards and the reference, the per-workload ratios behind them, and the
    model code. Cards outside the fit (other precisions, laptops, unmeasured catalog cards)
    do not change it."""
    pairs = training_points(measured, features, precision)
    used = {(fig.model, fig.source) for fig, _ in pairs}
    cards = sorted({fig.model for fig, _ in pairs} | {fig.reference for fig, _ in pairs})
    payload = {
        "precision": precision,
        "figures": sorted(
            [fig.model, fig.source, fig.reference, repr(fig.relative_perf), fig.workloads] for fig, _ in pairs
        ),
        "features": {m: sorted((k, str(v)) for k, v in features[m].items()) for m in cards if m in features},
        "ratios": sorted(
            [r.model, r.source, r.workload, repr(r.ratio)]
            for r in per_workload
            if r.precision == precision and (r.model, r.source) in used
        ),
        "code": model_code_fingerprint(),
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()
