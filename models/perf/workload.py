"""Per-workload roofline ("roofline v3"): one compute/memory share per workload.

A card's measured figure is the geometric mean over workloads of its throughput ratio to
the reference, and those workloads sit at different points of the roofline: BERT and
Transformer-XL spend their time in large matrix products (tensor-compute bound), NCF in
embedding look-ups (bandwidth bound), the CNNs in between. Roofline v2 fits one share
``alpha`` to the geomean, which cannot represent a mixture; here every workload ``w``
gets its own ``alpha_w`` and the card's figure is predicted the way it is measured, as
the geometric mean of the predicted per-workload ratios:

    log r_cw = s + u_family(c) + o_source + beta * m_c
               - log(alpha_w * C_ref / C_c + (1 - alpha_w) * B_ref / B_eff,c)

Everything but ``alpha_w`` is shared across workloads and means what it means in
roofline v2 (``models/perf/estimate.py``, whose features and forms this reuses). A
workload is a (file, column) pair: the 2021 TensorFlow ResNet-50 ran another harness
than the 2024 PyTorch one.

The design and its four candidate forms were fixed before any cross-validation of it
was run (docs/performance-log.md, "Roofline v3, per-workload"); the evaluation reports it
with nested leave-one-card-out, the form chosen inside each outer fold.

``fit_estimator`` (at the end) is the estimator the pipeline fits: this model when every
training figure's per-workload ratios are known, else roofline v2.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from gpuvalue.models.perf.estimate import (
    ALPHA_GRID,
    CANDIDATE_FORMS,
    GAMMA_GRID,
    DesignColumns,
    Estimator,
    FamilyMiss,
    Features,
    FittedEstimate,
    FittedTerms,
    HeldOutPrediction,
    ModelForm,
    log_memory_ratio,
    card_point,
    CardPoint,
    distinct_forms,
    estimate_record,
    fit_v2_estimator,
    linear_terms,
    points_key,
    scored_median_error,
    training_points,
)
from gpuvalue.models.perf.combine import COMBINED
from gpuvalue.models.perf.error_groups import GroupError, group_errors
from gpuvalue.models.perf.fit_weights import is_lambda, outlier_weights
from gpuvalue.models.perf.measured import WorkloadRatio, file_rank
from gpuvalue.models.records import PerfFigure, Precision

MODEL_VERSION = "roofline v3 per-workload"
# Family offsets are always on: architectures differ in achieved efficiency (Pascal has
# no tensor cores at all). Order: simplest first, ties go to the earlier form.
WORKLOAD_FORMS: tuple[ModelForm, ...] = tuple(f for f in CANDIDATE_FORMS if f.family_offsets)
# The forms the pipeline chooses among: GeForce tensor rate at NVIDIA's published FP32-accumulate rate
# (half the FP16-accumulate rate on Turing, Ampere GA10x, Ada and RTX Blackwell GeForce boards), never
# the doubled one. Mixed-precision training accumulates in FP32 (``arch_tables``), so the doubled rate is
# not a rate any training run reaches; letting cross-validation pick it fitted the GeForce cards' measured
# figures by crediting them with tensor throughput they lack, and put every professional and datacenter
# card of the same chips low (docs/performance-log.md, "Per-SKU tensor rates and same-chip bounds").
SHIPPED_FORMS: tuple[ModelForm, ...] = tuple(f for f in WORKLOAD_FORMS if not f.full_rate_geforce)
FIXED_FORM = ModelForm(full_rate_geforce=False, memory_term=False, family_offsets=True)
MAX_SWEEPS = 50  # alternations of the alpha_w and linear steps; converges in a handful

_ALPHAS = np.array(ALPHA_GRID)
# How far two float64 computations of one sum of n terms can be apart, per term and unit of their
# magnitude: 64 unit roundoffs, several times any bound of the sums ``_Problem._fit`` compares.
_ROUNDING = 64 * 2.0**-53


@dataclass(frozen=True)
class _Figure:
    """One card's figure in one file (or its combined figure over several sources), with the
    per-workload ratios it averages and each one's weight in that average."""

    model: str
    source: str
    workloads: tuple[str, ...]  # workload keys "source/column"
    log_ratios: tuple[float, ...]
    weights: tuple[float, ...] = ()  # sum to 1; empty: equal

    def weight_of(self) -> tuple[float, ...]:
        return self.weights or tuple(1.0 / len(self.workloads) for _ in self.workloads)


def workload_key(source: str, workload: str) -> str:
    """A workload is a source and a column; a combined figure's ratios already name their source."""
    return workload if source == COMBINED else f"{source}/{workload}"


def source_weights(keys: Sequence[str]) -> tuple[float, ...]:
    """Each workload's weight in a figure's average: every source weighs the same, its workloads
    share its weight ("Refit on the enlarged measured set", docs/performance-log.md). For a figure from
    one source this is 1/n for each of its n workloads."""
    prefixes = [k.split("/", 1)[0] for k in keys]
    counts = {p: prefixes.count(p) for p in prefixes}
    return tuple(1.0 / (counts[p] * len(counts)) for p in prefixes)


class _Problem:
    """One form's per-workload points, with the log-denominator at every (gamma, alpha)
    precomputed so that fits on cross-validation subsets are a few matrix products.

    ``_fit_direct`` states the fit: per gamma, the best alpha shared by every workload, then sweeps
    that move each workload to the alpha with its least squared error and refit the linear terms.
    ``_fit`` computes the very same fit, bit for bit, with less work (``_fit`` says how).
    """

    def __init__(
        self,
        figures: Sequence[_Figure],
        cards: Sequence[CardPoint],
        ref: CardPoint,
        form: ModelForm,
        primary: str,
        workloads: Sequence[str],
        twin: _Problem | None = None,
        figure_weights: Sequence[float] | None = None,
    ):
        self.form = form
        self.twin = twin  # an earlier form's problem on the very same cards (``points_key``): its fits
        self.ref = ref
        self.primary = primary
        self.workloads = list(workloads)
        self.figures = list(figures)
        self.cards = list(cards)  # one CardPoint per figure (source set)
        wk = {w: i for i, w in enumerate(self.workloads)}
        fig_of, work_of, y, weight = [], [], [], []
        for j, fig in enumerate(self.figures):
            for w, v, a in zip(fig.workloads, fig.log_ratios, fig.weight_of(), strict=True):
                fig_of.append(j)
                work_of.append(wk[w])
                y.append(v)
                weight.append(a)
        self.fig_of = np.array(fig_of, dtype=int)
        self.work_of = np.array(work_of, dtype=int)
        self.y = np.array(y)
        # Each figure weighs 1 in total, times its reliability weight (``fit_weights``) where given.
        self.weight = np.array(weight) if figure_weights is None else np.array(weight) * np.array(
            figure_weights, dtype=float)[self.fig_of]
        self.figure_weights = tuple(figure_weights) if figure_weights is not None else None
        points = [self.cards[j] for j in self.fig_of]  # each point's card
        self.log_den = _log_den_table(points, ref)  # G x A x n
        self.memory_x = np.array([log_memory_ratio(p, ref) for p in points])
        self.columns = DesignColumns(points, self.memory_x, form)
        # Per figure (its card carries its source): which files get an offset, and the design
        # matrix's rows (a point's row is its figure's: the same card, source and memory).
        self.card_columns = DesignColumns(self.cards, np.array([log_memory_ratio(c, ref) for c in self.cards]), form)
        self._fits: dict[frozenset[int], _WorkloadFit] = {}
        # For ``_fit``, whose card x workload tables need a point in every figure, at most one per
        # figure and workload, and finite inputs (else it leaves the fit to ``_fit_direct``).
        self.fig_len = np.bincount(self.fig_of, minlength=len(self.figures))
        pairs = self.fig_of * len(self.workloads) + self.work_of
        self.dense_ok = bool(len(pairs) and self.fig_len.all() and len(np.unique(pairs)) == len(pairs)
                             and np.isfinite(self.log_den).all() and np.isfinite(self.y).all()
                             and np.isfinite(self.weight).all())
        if self.dense_ok:
            # A figure's points are consecutive and share its card: its log denominators are its
            # first point's. And each point's alphas side by side, per gamma.
            first = np.r_[0, np.cumsum(self.fig_len)[:-1]]
            self.card_log_den = np.ascontiguousarray(self.log_den[:, :, first].transpose(0, 2, 1))  # G x F x A
            self.log_den_by_point = np.ascontiguousarray(self.log_den.transpose(0, 2, 1)).reshape(-1)  # [g, point, a]

    def fit(self, figure_idx: Collection[int]) -> _WorkloadFit:
        """Weighted least squares (ridge on family offsets) over the points of the given
        figures; per gamma, alternate between the linear terms and the alpha_w.

        A fit depends only on the set of figures, and nested cross-validation asks for each
        set twice (leaving out i then j, or j then i): each set is fitted once.
        """
        chosen = frozenset(figure_idx)
        if chosen not in self._fits:
            self._fits[chosen] = (dataclasses.replace(self.twin.fit(chosen), form=self.form) if self.twin is not None
                                  else self._fit(chosen))
        return self._fits[chosen]

    def _fit(self, chosen: frozenset[int]) -> _WorkloadFit:
        """``_fit_direct``'s fit, bit for bit, at a fraction of its cost.

        The direct fit spends its time on the squared errors of every point at every alpha, though
        all it takes from them is choices: each gamma's starting alpha, and in each sweep each
        workload's best alpha and whether it beats the current one. Here those errors are summed per
        card instead of per point (a workload's error at an alpha, expanded, is a few products of card
        x workload tables; a start's objective, the same per alpha), every gamma at once, and a choice
        is taken from them only where the candidates are far enough apart that neither the direct
        fit's rounding nor this one's can have swapped them (``_ROUNDING`` bounds both, generously).
        Where they might have, the direct fit's own sums decide. Everything the fit keeps (each
        sweep's linear terms, the objective, the best gamma) is computed as the direct fit computes
        it, in the same order and memory layout. tests/models/test_workload_fit.py holds the two fits
        equal on the evaluation's problems and on random ones with near ties.
        """
        if not self.dense_ok:
            return self._fit_direct(chosen)
        figure_idx = np.array(sorted(chosen), dtype=int)
        chosen_mask = np.zeros(len(self.figures), dtype=bool)
        chosen_mask[figure_idx] = True
        rows = np.flatnonzero(chosen_mask[self.fig_of])
        sources = self.card_columns.identifiable_sources(figure_idx, self.primary)
        x_card, pen, families = self.card_columns.matrix(figure_idx, sources)
        nf = len(figure_idx)
        card_of = np.repeat(np.arange(nf), self.fig_len[figure_idx])  # each point's card, 0..nf-1
        x = x_card[card_of]  # the direct fit's design matrix: each point's row is its card's
        w = self.weight[rows]
        gram = x.T @ (x * w[:, None]) + pen
        inv = np.linalg.inv(gram)
        y = self.y[rows]
        work = self.work_of[rows]
        present = np.flatnonzero(np.bincount(work, minlength=len(self.workloads)))
        n, k = x.shape
        n_alpha, ng = len(_ALPHAS), len(GAMMA_GRID)
        nw = len(present)
        local = np.zeros(len(self.workloads), dtype=int)
        local[present] = np.arange(nw)
        wk = local[work]  # each point's workload, 0..nw-1

        # Card x workload tables (zero where a card has no point): weights and weighted ratios.
        wt = np.zeros((nf, nw))
        wt[card_of, wk] = w
        wyt = np.zeros((nf, nw))
        wyt[card_of, wk] = w * y
        sw, swy, swy_abs = wt.sum(axis=1), wyt.sum(axis=1), np.abs(wyt).sum(axis=1)
        y2w = np.bincount(wk, w * y * y, minlength=nw)
        y2 = float(y2w.sum())
        ax = np.abs(x_card)
        lam_t = self.card_log_den[:, figure_idx]  # G x F x A: each card's log denominators
        lam2_t = lam_t * lam_t
        # A workload's squared error at alpha a, for linear part b (per card), expanded:
        #   sum_f w (y - b + lam_a)^2 = sum_f w lam_a^2 + 2 (w y) lam_a - 2 (w b) lam_a + sum_f w (y - b)^2;
        # the last term is the same at every alpha, so the comparisons between alphas leave it out.
        w_t = np.ascontiguousarray(wt.T)  # W x F
        wt4 = 4 * wt
        fixed = np.matmul(np.hstack([w_t, 2 * wyt.T]), np.concatenate([lam2_t, lam_t], axis=1))  # G x W x A
        lam_max = lam2_t.max(axis=2) @ wt  # G x W: bounds sum_f w lam^2 at any alpha
        size = _ROUNDING * (n + nf + k + 16)

        # Each gamma's start: every alpha's own solution and objective, at card level; the best alpha.
        lam = lam_t.transpose(0, 2, 1)  # G x A x F
        g_all = (swy + lam * sw) @ x_card  # G x A x k: X'W r for r = y + log den
        th_all = g_all @ inv.T
        obj = (y2 + 2 * (lam @ swy) + (lam * lam) @ sw) - 2 * (th_all * g_all).sum(-1) + ((th_all @ gram) * th_all).sum(-1)
        th_abs = np.abs(th_all)
        t1 = np.abs(lam) + th_abs @ ax.T  # G x A x F
        scale = y2 + (t1 * t1) @ sw + 2 * (t1 @ swy_abs) + ((th_abs @ np.abs(pen)) * th_abs).sum(-1)
        # How far the direct fit's solutions can be from these (the same sums, rounded apart).
        near = size * ((swy_abs + np.abs(lam) * sw) @ ax + np.abs(g_all))  # G x A x k
        d_theta = near @ np.abs(inv).T
        abs_gram = np.abs(gram)
        drift = 2 * ((th_abs @ abs_gram + np.abs(g_all) + near) * d_theta).sum(-1) + ((d_theta @ abs_gram) * d_theta).sum(-1)
        tol = size * scale + drift
        every_g = np.arange(ng)
        a0 = obj.argmin(axis=1)
        others = obj - tol
        others[every_g, a0] = np.inf
        sure_start = obj[every_g, a0] + tol[every_g, a0] < others.min(axis=1)
        theta = th_all[every_g, a0]  # G x k
        d_start = d_theta[every_g, a0]  # G x k: 0 once the direct fit's start is known
        direct: dict[int, tuple[np.ndarray, np.ndarray]] = {}

        def direct_start(g: int) -> tuple[np.ndarray, np.ndarray]:
            """The direct fit's residuals and solutions of every alpha at gamma g."""
            if g not in direct:
                resid = y[None, :] + self.log_den[g][:, rows]
                direct[g] = resid, (inv @ (x.T @ (resid * w[None, :]).T)).T
            return direct[g]

        for g in np.flatnonzero(~sure_start).tolist():
            resid, thetas = direct_start(g)
            fitted = thetas @ x.T
            objs = ((resid - fitted) ** 2 * w).sum(axis=1) + np.einsum("ak,kl,al->a", thetas, pen, thetas)
            a0[g] = int(np.argmin(objs))
            theta[g] = thetas[a0[g]]
            d_start[g] = 0.0

        alpha = np.repeat(a0[:, None], nw, axis=1)  # G x W: each workload's alpha, per gamma
        sweeps = np.zeros(ng, dtype=int)
        active = every_g.copy()
        point_base = (every_g[:, None] * len(self.weight) + rows) * n_alpha  # where a point's alphas start
        last_r = np.empty((ng, n))  # each gamma's r at its last sweep
        by_workload: tuple[np.ndarray, ...] | None = None
        offsets = np.arange(nw) * n_alpha
        at_all = (every_g * (nw * n_alpha))[:, None] + offsets  # where each gamma's row of ``err`` starts, per workload
        # The tables of the active gammas, taken again only when some gamma has converged (``active``
        # only shrinks, so its length names it): a sweep is a few dozen small array operations, and
        # each one spared counts thousands of times over an evaluation.
        taken = -1
        first_sweep = True
        while len(active):
            if len(active) != taken:
                taken = len(active)
                every = taken == ng
                lam_active = lam_t if every else lam_t[active]
                fixed_active = fixed if every else fixed[active]
                lam_max_active = lam_max[active]
                point_active = point_base if every else point_base[active]
                at = at_all[:taken]
            th = theta[active]
            b = th @ x_card.T  # a x F: each card's linear part
            h = np.abs(th) @ ax.T  # bounds |b| and its rounding
            bound = y2w + (h * h) @ wt4 + lam_max_active  # a x W: 3x this bounds each workload's terms
            tol = 3 * size * bound
            if first_sweep:  # every gamma's first sweep starts from its start's solution
                first_sweep = False
                first = sweeps[active] == 0
                db = d_start[active] @ ax.T  # a x F: how far the start's b can be from the direct fit's
                spread = (db * db) @ wt
                tol = tol + np.where(first[:, None], 2 * np.sqrt(3 * bound * spread) + spread, 0.0)
            err = np.matmul(w_t, (-2 * b)[:, :, None] * lam_active)  # a x W x A
            err += fixed_active
            cand = err.argmin(axis=2)
            flat = err.reshape(-1)
            at_cand = at + cand
            best_err = flat[at_cand]
            cur = alpha[active]
            cur_err = flat[at + cur]
            flat[at_cand] = np.inf
            runner_up = err.min(axis=2)  # the least error but the best's
            gap = cur_err - best_err - 1e-15
            tol3 = 3 * tol
            better = gap > tol3
            # Sure where no other alpha comes that close to the best and the comparison with the
            # current one is clear (or the best is the current one).
            sure = (runner_up - best_err > 2 * tol) & ((np.abs(gap) > tol3) | (cand == cur))
            if not sure.all():
                if by_workload is None:
                    order = np.argsort(work, kind="stable")
                    starts = np.r_[0, np.flatnonzero(np.diff(work[order])) + 1]
                    by_workload = (starts, np.r_[starts[1:], n], w[order], x[order], rows[order], y[order])
                starts, ends, w_sorted, x_sorted, rows_sorted, y_sorted = by_workload
                for j in np.flatnonzero(~sure.all(axis=1)):
                    g = int(active[j])
                    unsure = np.flatnonzero(~sure[j])
                    # The direct fit's errors of these workloads, summed as it sums them.
                    th_g = direct_start(g)[1][a0[g]] if sweeps[g] == 0 else theta[g]
                    base = x_sorted @ th_g
                    pos = np.concatenate([np.arange(starts[u], ends[u]) for u in unsure])
                    resid = y_sorted[pos][None, :] + self.log_den[g][:, rows_sorted[pos]]
                    sq = np.empty(resid.shape)
                    np.subtract(resid, base[pos], out=sq)
                    np.square(sq, out=sq)
                    np.multiply(sq, w_sorted[pos][None, :], out=sq)
                    exact = np.add.reduceat(sq, np.r_[0, np.cumsum(ends[unsure] - starts[unsure])[:-1]], axis=1)
                    pick = np.argmin(exact, axis=0)
                    cols = np.arange(len(unsure))
                    cand[j, unsure] = pick
                    better[j, unsure] = exact[pick, cols] < exact[cur[j, unsure], cols] - 1e-15
            new = np.where(better, cand, cur)
            alpha[active] = new
            # The linear terms for the new alphas, as the direct fit computes them (one vector per
            # gamma, each contiguous: BLAS reads a strided vector differently).
            r = y + np.take(self.log_den_by_point, point_active + np.take(new, wk, axis=1))
            last_r[active] = r
            rw = np.ascontiguousarray(r * w)  # C order already: no copy
            theta[active] = np.matmul(inv, np.matmul(x.T, rw[:, :, None]))[:, :, 0]
            sweeps[active] += 1
            active = active[better.any(axis=1) & (sweeps[active] < MAX_SWEEPS)]

        best: tuple[float, int, np.ndarray] | None = None
        for g in range(ng):
            r = last_r[g]
            th = theta[g]
            objective = float(((r - x @ th) ** 2 * w).sum() + th @ pen @ th)
            if best is None or objective < best[0] - 1e-12:
                best = (objective, g, th)
        assert best is not None  # ng >= 1: GAMMA_GRID is not empty
        objective, g, th = best
        alpha_idx = np.full(len(self.workloads), a0[g])
        alpha_idx[present] = alpha[g]
        return self._result(objective, g, alpha_idx, th, present, sources, families)

    def _fit_direct(self, chosen: frozenset[int]) -> _WorkloadFit:
        figure_idx = np.array(sorted(chosen), dtype=int)
        rows = np.flatnonzero(np.isin(self.fig_of, figure_idx))
        sources = self.card_columns.identifiable_sources(figure_idx, self.primary)  # none from one file
        x, pen, families = self.columns.matrix(rows, sources)
        w = self.weight[rows]
        inv = np.linalg.inv(x.T @ (x * w[:, None]) + pen)
        y = self.y[rows]
        work = self.work_of[rows]
        present = np.unique(work)
        # Per-workload sums of the points' weighted squared errors: the points sorted by workload,
        # each workload's run summed (a dense one-hot product did the same, far slower).
        order = np.argsort(work, kind="stable")
        starts = np.r_[0, np.flatnonzero(np.diff(work[order])) + 1]
        err = np.zeros((len(_ALPHAS), len(self.workloads)))
        w_sorted, x_sorted = w[order], x[order]
        every_workload, every_row = np.arange(len(self.workloads)), np.arange(len(rows))
        sq = np.empty((len(_ALPHAS), len(rows)))  # the sweeps' squared errors, in workload order

        best: tuple[float, int, np.ndarray, np.ndarray] | None = None
        for g in range(len(GAMMA_GRID)):
            den = self.log_den[g][:, rows]  # A x n
            # Start: the best single alpha shared by every workload (v2's fit, weighted).
            resid = y[None, :] + den  # A x n
            thetas = (inv @ (x.T @ (resid * w[None, :]).T)).T  # A x k
            fitted = thetas @ x.T
            obj = ((resid - fitted) ** 2 * w).sum(axis=1) + np.einsum("ak,kl,al->a", thetas, pen, thetas)
            a0 = int(np.argmin(obj))
            alpha_idx = np.full(len(self.workloads), a0)
            theta = thetas[a0]
            resid_sorted = resid[:, order]  # constant over the sweeps: only the linear part moves
            for _ in range(MAX_SWEEPS):
                # (y + den - base)^2 w, each element computed as before, in place and already in
                # workload order (the sweeps are most of a fit's time).
                np.subtract(resid_sorted, x_sorted @ theta, out=sq)
                np.square(sq, out=sq)
                np.multiply(sq, w_sorted[None, :], out=sq)
                err[:, present] = np.add.reduceat(sq, starts, axis=1)  # A x workloads
                new = alpha_idx.copy()
                cand = np.argmin(err, axis=0)
                better = err[cand, every_workload] < err[alpha_idx, every_workload] - 1e-15
                new[better] = cand[better]
                changed = bool((new != alpha_idx).any())
                alpha_idx = new
                r = y + den[alpha_idx[work], every_row]
                theta = inv @ (x.T @ (r * w))
                if not changed:
                    break
            r = y + den[alpha_idx[work], every_row]
            objective = float(((r - x @ theta) ** 2 * w).sum() + theta @ pen @ theta)
            if best is None or objective < best[0] - 1e-12:
                best = (objective, g, alpha_idx.copy(), theta.copy())
        assert best is not None  # GAMMA_GRID is not empty
        objective, g, alpha_idx, theta = best
        return self._result(objective, g, alpha_idx, theta, present, sources, families)

    def _result(self, objective: float, g: int, alpha_idx: np.ndarray, theta: np.ndarray, present: np.ndarray,
                sources: Sequence[str], families: Sequence[str]) -> _WorkloadFit:
        """The chosen fit as kept: each present workload's alpha, the gamma at index ``g``, the linear terms."""
        beta, source_offsets, family_offsets = linear_terms(theta, self.form, sources, families)
        return _WorkloadFit(
            form=self.form,
            alphas=dict(zip([self.workloads[i] for i in present.tolist()], _ALPHAS[alpha_idx[present]].tolist(),
                            strict=True)),
            default_alpha=float(_ALPHAS[np.bincount(alpha_idx[present]).argmax()]),
            gamma=float(GAMMA_GRID[g]),
            scale=float(theta[0]),
            memory_beta=beta,
            source_offsets=source_offsets,
            family_offsets=family_offsets,
            objective=objective,
        )


def _log_den_table(points: Sequence[CardPoint], ref: CardPoint) -> np.ndarray:
    """log(alpha C_ref/C + (1-alpha) B_ref/B_eff) for every gamma, alpha and point."""
    comp = np.array([ref.compute / p.compute for p in points])
    bw = np.array([ref.bandwidth / p.bandwidth for p in points])
    l2 = np.array([p.l2 / ref.l2 for p in points])
    a = _ALPHAS[:, None]
    return np.stack(
        [np.log(a * comp[None, :] + (1 - a) * (bw * l2 ** (-g))[None, :]) for g in GAMMA_GRID]
    )


@dataclass(frozen=True, kw_only=True)
class _WorkloadFit(FittedTerms):
    alphas: dict[str, float]  # workload key -> alpha_w
    default_alpha: float  # for a workload no training card ran (the most common alpha_w)

    def log_predict(self, p: CardPoint, ref: CardPoint, workloads: Sequence[str],
                    weights: Sequence[float] | None = None) -> float:
        """log of the (weighted) geometric mean over ``workloads`` of the predicted ratios."""
        # Not divided by the fit's own prediction for the reference card any more: with the GeForce
        # tensor rate at its published FP32-accumulate rate that prediction carries the reference's
        # own residual into every estimate (all of them 15-20 % high at fp16). The common scale is
        # fitted on every measured card, each a ratio to the reference already (docs/performance-log.md,
        # "Per-SKU tensor rates and same-chip bounds").
        out = self.log_linear(p, ref)
        b = ref.bandwidth / (p.bandwidth * (p.l2 / ref.l2) ** self.gamma)
        c = ref.compute / p.compute
        dens = [
            math.log(a * c + (1 - a) * b)
            for a in (self.alphas.get(w, self.default_alpha) for w in workloads)
        ]
        if weights:
            return out - sum(d * x for d, x in zip(dens, weights, strict=True)) / sum(weights)
        return out - statistics.fmean(dens)


# --- data ----------------------------------------------------------------------------


@dataclass(frozen=True)
class _Data:
    problems: dict[ModelForm, _Problem]
    models: list[str]
    target: dict[str, int]  # card -> index of its headline figure
    members: dict[str, list[int]]  # card -> indices of all its figures
    headline: dict[str, float]  # card -> measured headline figure
    reference: str
    primary: str
    # The maker of a form's problem with figure weights (``fit_weights``).
    build: Callable[[ModelForm, Sequence[float]], _Problem] | None = None


def _prepare(
    measured: Sequence[PerfFigure],
    per_workload: Sequence[WorkloadRatio],
    features: Mapping[str, Features],
    precision: Precision,
    forms: Sequence[ModelForm],
    every_file: bool,
) -> _Data:
    """Training figures as roofline v2 takes them (``training_points``: one per card and
    file, headline first); each brings its per-workload ratios from ``per_workload``.
    Without ``every_file`` only the headline file's ratios of each card are used."""
    ratios: dict[tuple[str, str], list[WorkloadRatio]] = {}
    for r in per_workload:
        if r.precision == precision:
            ratios.setdefault((r.model, r.source), []).append(r)
    pairs = training_points([*measured], features, precision)
    models = list(dict.fromkeys(fig.model for fig, _ in pairs))
    if len(models) < 3:
        raise ValueError(f"need at least 3 measured {precision} cards with specs, got {len(models)}")
    reference = pairs[0][0].reference
    ref_feats = features.get(reference)
    if ref_feats is None:
        raise ValueError(f"no usable features for the reference card {reference!r}")
    primary = next((fig.source for fig, _ in pairs if fig.model == reference), pairs[0][0].source)
    if primary == COMBINED:
        # The reference's combined figure: an unmeasured card is predicted over its first source's
        # workloads (Lambda's newest PyTorch file, as the headline rule ranks files).
        parts = {r.workload.split("/", 1)[0] for r in ratios.get((reference, COMBINED), [])}
        if parts:
            primary = min(parts, key=lambda src: (not src.startswith("lambda-"), file_rank(src, 0), src))
    headline: dict[str, float] = {}
    kept = []
    for fig, feats in pairs:
        first = fig.model not in headline
        if first:
            headline[fig.model] = fig.relative_perf
        elif not every_file:
            continue
        rs = ratios.get((fig.model, fig.source))
        if not rs:
            raise ValueError(f"no per-workload ratios for {fig.model} in {fig.source}")
        kept.append((fig, feats, rs))
    figures = []
    for fig, _, rs in kept:
        keys = tuple(workload_key(r.source, r.workload) for r in rs)
        figures.append(_Figure(model=fig.model, source=fig.source, workloads=keys,
                               log_ratios=tuple(math.log(r.ratio) for r in rs), weights=source_weights(keys)))
    workloads = sorted({w for f in figures for w in f.workloads})
    points = {form: (card_point(ref_feats, precision, form),
                     [card_point(feats, precision, form, source=fig.source) for fig, feats, _ in kept])
              for form in forms}

    def build(form: ModelForm, weights: Sequence[float]) -> _Problem:
        ref, cards = points[form]
        return _Problem(figures, cards, ref, form, primary, workloads, None, weights)

    problems: dict[ModelForm, _Problem] = {}
    for form in forms:
        ref, cards = points[form]
        key = points_key(form, cards, ref)
        twin = next((p for p in problems.values() if points_key(p.form, p.cards, p.ref) == key), None)
        problems[form] = _Problem(figures, cards, ref, form, primary, workloads, twin)
    target: dict[str, int] = {}
    members: dict[str, list[int]] = {}
    for i, f in enumerate(figures):
        target.setdefault(f.model, i)
        members.setdefault(f.model, []).append(i)
    return _Data(problems, models, target, members, headline, reference, primary, build)


def _weighted(data: _Data, form: ModelForm, residuals: Mapping[str, float]) -> _Problem:
    """The form's problem with each figure weighed by how far the model is from it held out
    (``fit_weights``: ``residuals`` are the cards' held-out log residuals of the unweighted fit); the
    unweighted problem where every figure weighs 1."""
    unweighted = data.problems[form]
    per_card = outlier_weights(residuals)
    weights = [1.0 if any(is_lambda(w) for w in f.workloads) else per_card.get(f.model, 1.0)
               for f in unweighted.figures]
    if data.build is None or all(w == 1.0 for w in weights):
        return unweighted
    return data.build(form, weights)


def _without(data: _Data, idx: Sequence[int], model: str) -> list[int]:
    drop = set(data.members[model])
    return [i for i in idx if i not in drop]


def _predict_headline(data: _Data, form: ModelForm, fit: _WorkloadFit, model: str) -> float:
    """log of the predicted headline figure: over the workloads the card was measured on."""
    problem = data.problems[form]
    t = data.target[model]
    figure = problem.figures[t]
    return fit.log_predict(problem.cards[t], problem.ref, figure.workloads, figure.weight_of())


def _select_form(data: _Data, idx: Sequence[int], forms: Sequence[ModelForm]) -> ModelForm:
    """Smallest leave-one-card-out mean absolute log error of the headline figures of
    the cards in ``idx``; ties to the earlier form."""
    best, best_score = forms[0], math.inf
    for form in distinct_forms(data.problems, forms):
        score = statistics.fmean(abs(e) for e in _residuals(data, idx, form).values())
        if score < best_score - 1e-12:
            best, best_score = form, score
    return best


def _residuals(data: _Data, idx: Sequence[int], form: ModelForm) -> dict[str, float]:
    """The unweighted form's leave-one-card-out log residuals of the cards in ``idx`` (measured over
    predicted, each without its own figures): what the form choice scores and the fit's weights are read
    from (``fit_weights``). The folds' fits are kept by the problem, so asking again costs predictions."""
    present = set(idx)
    problem = data.problems[form]
    out = {}
    for m in data.models:
        if data.target[m] in present:
            fit = problem.fit(_without(data, idx, m))
            out[m] = math.log(data.headline[m]) - _predict_headline(data, form, fit, m)
    return out


def workload_loocv_predictions(*args: object, anchored: bool = False, **kwargs: object) -> list[HeldOutPrediction]:
    """Each card's headline figure predicted without any of its figures or workloads; the
    arguments are ``workload_loocv_both``'s. With ``anchored``, the sibling-anchored variant
    (``anchor_log``), which was evaluated and not adopted."""
    plain, anchored_preds = workload_loocv_both(*args, **kwargs)  # type: ignore[arg-type]
    return anchored_preds if anchored else plain


def workload_loocv_both(
    measured: Sequence[PerfFigure],
    per_workload: Sequence[WorkloadRatio],
    features: Mapping[str, Features],
    precision: Precision,
    form: ModelForm | None = None,
    forms: Sequence[ModelForm] = SHIPPED_FORMS,
    every_file: bool = False,
    cards: Collection[str] | None = None,
) -> tuple[list[HeldOutPrediction], list[HeldOutPrediction]]:
    """Plain and sibling-anchored leave-one-card-out predictions from the same fold fits (the
    nested form choice is most of the cost).

    With ``form``, plain leave-one-card-out of that form; without, nested: the form is
    chosen inside each outer fold by leave-one-card-out on the remaining cards only. With
    ``cards``, only those cards' folds (each fold is the same whichever others run), so a
    question about one card costs one fold, not one per card."""
    used = [form] if form is not None else list(forms)
    data = _prepare(measured, per_workload, features, precision, used, every_file)
    return _loocv(data, form, used, cards)


def _unmeasured(p: CardPoint) -> CardPoint:
    """The point as for a card without a benchmark (no file offset)."""
    return dataclasses.replace(p, source="", log_perf=None)


def anchor_log(fit: _WorkloadFit, card: CardPoint, ref: CardPoint, workloads: Sequence[str],
               siblings: Sequence[tuple[float, CardPoint]]) -> float | None:
    """log of the card's estimate anchored on measured cards of its family: the geometric
    mean over siblings of measured(s) * p(card) / p(s), every p over the same workloads.
    Whatever the model's family term gets wrong cancels in the ratio. None without siblings."""
    if not siblings:
        return None
    own = fit.log_predict(_unmeasured(card), ref, workloads)
    return statistics.fmean(
        math.log(measured) + own - fit.log_predict(_unmeasured(s), ref, workloads) for measured, s in siblings
    )


def _primary_workloads(data: _Data, problem: _Problem) -> tuple[str, ...]:
    return tuple(w for w in problem.workloads if w.startswith(data.primary + "/"))


def _siblings(data: _Data, problem: _Problem, model: str, among: Sequence[str]) -> list[tuple[float, CardPoint]]:
    family = problem.cards[data.target[model]].family
    return [
        (data.headline[m], problem.cards[data.target[m]])
        for m in among
        if m != model and problem.cards[data.target[m]].family == family
    ]


def _loocv(
    data: _Data, form: ModelForm | None, used: Sequence[ModelForm], cards: Collection[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[HeldOutPrediction], list[HeldOutPrediction]]:
    """Plain and sibling-anchored predictions of every card (or of ``cards``), from the same fold fits;
    ``progress(done, total)`` after each card's fold (the nested choice costs seconds a
    precision on a small machine)."""
    everything = list(range(len(next(iter(data.problems.values())).figures)))
    held_out = [m for m in data.models if cards is None or m in cards]
    plain, anchored = [], []
    for done, model in enumerate(held_out, start=1):
        rest = _without(data, everything, model)
        # The form chosen, and the fit's weights read, from the other cards only.
        chosen = form if form is not None else _select_form(data, rest, used)
        problem = _weighted(data, chosen, _residuals(data, rest, chosen))
        fit = problem.fit(rest)
        own = _predict_headline(data, chosen, fit, model)
        plain.append(HeldOutPrediction(model=model, measured=data.headline[model], predicted=math.exp(own),
                                       form=chosen))
        others = [m for m in data.models if m != model]
        log_anchored = anchor_log(fit, problem.cards[data.target[model]], problem.ref,
                                  _primary_workloads(data, problem), _siblings(data, problem, model, others))
        anchored.append(HeldOutPrediction(
            model=model, measured=data.headline[model],
            predicted=math.exp(own if log_anchored is None else log_anchored), form=chosen))
        if progress is not None:
            progress(done, len(held_out))
    return plain, anchored


# --- estimator -----------------------------------------------------------------------


@dataclass(kw_only=True)
class WorkloadEstimator(FittedEstimate):
    """A fitted per-workload estimate for one precision; an unmeasured card is predicted
    over the primary file's workloads (the file the reference card's figure comes from)."""

    fit: _WorkloadFit
    workloads: tuple[str, ...]
    family_misses: dict[str, FamilyMiss] = dataclasses.field(default_factory=dict)
    # Each training card's estimate from the same form fitted without any of its figures: the
    # estimate's evidence about a measured card, which must not have seen its measurement
    # (models/perf/weighted.py).
    held_out: dict[str, float] = dataclasses.field(default_factory=dict)
    # Per kind of card (``error_groups``), the nested cross-validation's median error: the figure
    # docs/performance.md's per-kind table and ``perf --evaluate`` show, from the same held-out
    # predictions as ``cv_median_abs_error``; None when not cross-validated here nor known.
    group_errors: dict[str, GroupError] | None = None

    version = MODEL_VERSION

    def predict(self, features: Features) -> float | None:
        p = card_point(features, self.precision, self.form)
        if not (math.isfinite(p.compute) and math.isfinite(p.bandwidth)):
            return None
        return math.exp(self.fit.log_predict(p, self.reference_point, self.workloads))

    def predict_anchored(self, features: Features, measured: Sequence[tuple[float, Features]]) -> float | None:
        """The prediction anchored on the measured cards of the card's family among
        ``measured`` (figure, features); the plain prediction when there are none."""
        p = card_point(features, self.precision, self.form)
        if not (math.isfinite(p.compute) and math.isfinite(p.bandwidth)):
            return None
        siblings = []
        for value, feats in measured:
            s = card_point(feats, self.precision, self.form)
            if s.family == p.family and s.model != p.model and math.isfinite(s.compute) and math.isfinite(s.bandwidth):
                siblings.append((value, s))
        log_value = anchor_log(self.fit, p, self.reference_point, self.workloads, siblings)
        return self.predict(features) if log_value is None else math.exp(log_value)

    def estimate(self, features: Features) -> PerfFigure | None:
        """An estimated PerfFigure, or None when the card lacks the needed specs."""
        value = self.predict(features)
        if value is None:
            return None
        alphas = sorted(self.fit.alphas.values())
        return estimate_record(
            features, value, self.precision, self.reference, self.trained_families, self.cv_median_abs_error,
            f"{MODEL_VERSION} ({self.form.label}; alpha_w {alphas[0]:.3f}-{alphas[-1]:.3f} "
            f"over {len(self.workloads)} workloads, gamma={self.fit.gamma:.2f}; "
            f"{len(self.trained_models)} measured cards)",
            self.family_misses,
            self.group_errors,
        )


def _family_misses(
    data: _Data, problem: _Problem, fit: _WorkloadFit, workloads: Sequence[str]
) -> dict[str, FamilyMiss]:
    """Per family, how far the fit is from its measured cards when it predicts them as it
    predicts a card without a benchmark (over ``workloads``): the robust mean of their log misses, each
    card's miss times its weight in the fit (``fit_weights``; the influence ``w(e) e`` of a robust
    location estimate). A figure the fit down-weighted as far outside the model's reach moves the
    family's verdict as little as it moved the fit, even where it is the family's only measured card:
    either the model or that one measurement is off, and the fit has judged which is likelier."""
    weights = problem.figure_weights
    logs: dict[str, list[tuple[str, float, float]]] = {}
    for model in data.models:
        t = data.target[model]
        card = problem.cards[t]
        predicted = fit.log_predict(_unmeasured(card), problem.ref, workloads)
        weight = weights[t] if weights is not None else 1.0
        logs.setdefault(card.family, []).append((model, math.log(data.headline[model]) - predicted, weight))
    return {
        family: FamilyMiss(ratio=math.exp(sum(v * w for _, v, w in rows) / len(rows)),
                           models=tuple(m for m, _, _ in rows))
        for family, rows in logs.items()
    }


def _held_out(data: _Data, problem: _Problem, everything: Sequence[int], workloads: Sequence[str],
              residuals: Mapping[str, float]) -> dict[str, float]:
    """Each card predicted, as a card without a benchmark is, by the form fitted without it: on weights
    read from the other cards' residuals (``residuals``: each card's, from the unweighted form fitted
    without it), so the card's own measurement does not weigh the others."""
    out = {}
    for model in data.models:
        others = {m: e for m, e in residuals.items() if m != model}
        fitted = _weighted(data, problem.form, others)
        fit = fitted.fit(_without(data, everything, model))
        card = _unmeasured(problem.cards[data.target[model]])
        out[model] = math.exp(fit.log_predict(card, problem.ref, workloads))
    return out


def fit_workload_estimator(
    measured: Sequence[PerfFigure],
    per_workload: Sequence[WorkloadRatio],
    features: Mapping[str, Features],
    precision: Precision,
    forms: Sequence[ModelForm] = SHIPPED_FORMS,
    *,
    cross_validate: bool = True,
    known_form: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> WorkloadEstimator:
    """Choose the form by leave-one-card-out on every measured card, fit it on all of
    them; the uncertainty is the nested-CV median error (form choice included).

    ``known_form`` (a ``ModelForm.code``) is the choice an earlier fit on the same inputs made
    (stored beside its error, keyed by the inputs digest): the choice is then not repeated.
    ``progress(done, total)`` follows the cross-validation's folds."""
    data = _prepare(measured, per_workload, features, precision, forms, every_file=False)
    everything = list(range(len(next(iter(data.problems.values())).figures)))
    chosen = [f for f in forms if f.code == known_form]
    form = chosen[0] if chosen else _select_form(data, everything, forms) if len(forms) > 1 else forms[0]
    residuals = _residuals(data, everything, form)
    problem = _weighted(data, form, residuals)
    fit = problem.fit(everything)
    primary = tuple(w for w in problem.workloads if w.startswith(data.primary + "/"))
    est = WorkloadEstimator(
        precision=precision,
        reference=data.reference,
        fit=fit,
        reference_point=problem.ref,
        workloads=primary,
        trained_models=tuple(data.models),
        trained_families=frozenset(p.family for p in problem.cards),
        family_misses=_family_misses(data, problem, fit, primary),
        held_out=_held_out(data, problem, everything, primary, residuals),
    )
    if cross_validate:
        # The same problems as the fit above, so the folds reuse its fits of the same card sets.
        nested = _loocv(data, None, list(forms), progress=progress)[0]
        est.cv_median_abs_error = scored_median_error(nested, est.reference)
        est.group_errors = group_errors(((h.model, h.measured, h.predicted) for h in nested), features,
                                        data.reference)
    return est


# --- the pipeline's estimator: this model, or roofline v2 without the ratios -------------


def fit_estimator(
    measured: Sequence[PerfFigure],
    features: Mapping[str, Features],
    precision: Precision,
    forms: Sequence[ModelForm] = CANDIDATE_FORMS,
    *,
    per_workload: Sequence[WorkloadRatio] = (),
    cross_validate: bool = True,
    known_cv_error: float | None = None,
    known_form: str | None = None,
    known_group_errors: Mapping[str, GroupError] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Estimator | WorkloadEstimator:
    """The pipeline's spec estimator for one precision.

    ``cross_validate=False`` skips the nested cross-validation behind the attached
    uncertainty (most of the cost) for callers that only predict, such as the held-out
    check, which reports its own errors. ``known_cv_error`` skips it too and attaches that
    error instead: the one a previous fit on the same inputs computed (the pipeline keys
    it by ``models.perf.digest.estimate_inputs_digest``); ``known_form``, the form that fit
    chose, skips the per-workload model's form choice too; ``known_group_errors``, the same
    cross-validation's errors per kind of card, are attached with it. ``progress(done, total)`` follows the
    per-workload model's nested cross-validation, card by card (seconds on a small machine).

    With the per-workload ratios behind every training figure (``per_workload``), this
    module's per-workload model ("roofline v3"): its pre-registered nested cross-validation
    beat roofline v2's median error at both precisions (docs/performance.md). Without them (a warehouse loaded before they were kept,
    hand-made figures), roofline v2 as below.

    Roofline v2: choose the form by leave-one-card-out on every usable measured card,
    fit it on all of them; the attached uncertainty is the nested-CV median error (the
    honest error for an unseen card, form choice included). ``measured`` may hold
    several benchmark files' figures of one card (distinct ``source``); all of them are
    fitted, with a per-file offset.
    """
    validate = cross_validate and known_cv_error is None
    if per_workload and _has_every_ratio(measured, per_workload, features, precision):
        headline: dict[str, PerfFigure] = {}
        for fig, _ in training_points(measured, features, precision):
            headline.setdefault(fig.model, fig)
        est: Estimator | WorkloadEstimator = fit_workload_estimator(
            list(headline.values()), per_workload, features, precision, cross_validate=validate,
            known_form=known_form, progress=progress)
    else:
        est = fit_v2_estimator(measured, features, precision, forms, validate)
    if known_cv_error is not None:
        est.cv_median_abs_error = known_cv_error
        if isinstance(est, WorkloadEstimator) and known_group_errors is not None:
            est.group_errors = dict(known_group_errors)
    return est


def _has_every_ratio(
    measured: Sequence[PerfFigure],
    per_workload: Sequence[WorkloadRatio],
    features: Mapping[str, Features],
    precision: Precision,
) -> bool:
    """Whether every training figure's per-workload ratios are there (all or nothing:
    the per-workload model predicts a card's figure from its ratios)."""
    have = {(r.model, r.source) for r in per_workload if r.precision == precision}
    pairs = training_points(measured, features, precision)
    return bool(pairs) and all((fig.model, fig.source) in have for fig, _ in pairs)
