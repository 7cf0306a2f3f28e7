"""Evaluation: nested CV really holds each card out, the table's figures, baselines."""

from types import SimpleNamespace

import pytest
from gpuvalue.models.perf import eval as perf_eval
from gpuvalue.models.perf.estimate import loocv_predictions
from gpuvalue.models.perf.eval import (
    NESTED,
    NESTED_PER_FILE,
    V1_FIXED,
    WORKLOAD_ANCHORED,
    WORKLOAD_EVERY_FILE,
    WORKLOAD_FIXED,
    WORKLOAD_NESTED,
    EvalTable,
    evaluate_loocv,
    evaluation_report,
    format_eval_table,
)
from gpuvalue.models.perf.measured import relative_perf_from_lambda
from gpuvalue.models.perf.scores import EvalRow, spearman
from gpuvalue.scrapers.sources.lambda_bench import LAMBDA_FILES, fetch_lambda_tables
import perf_eval_pinned
from lambda_fixtures import FILES, WORKLOAD_NESTED_ERRORS, evaluation_data, fixture_path


@pytest.fixture(scope="module")
def data():
    return evaluation_data()


_evaluated: list[tuple[tuple, EvalTable]] = []


def _key(measured, features, precision, **kwargs) -> tuple:
    return (list(measured), list(features.items()), precision,
            sorted((k, list(v) if isinstance(v, (list, tuple)) else v) for k, v in kwargs.items()))


def evaluate_once(measured, features, precision, **kwargs) -> EvalTable:
    """evaluate_loocv, computed once per distinct input in this module.

    Its nested cross-validation costs seconds to tens of seconds per table, and the fixtures and
    the report test ask for the same tables. evaluate_loocv is a pure function of its arguments, so
    a table computed for equal arguments (the same figures, ratios and features, in the same order)
    is the table it would compute again; any other arguments are computed afresh.
    """
    key = _key(measured, features, precision, **kwargs)
    for seen, table in _evaluated:
        if seen == key:
            return table
    table = evaluate_loocv(measured, features, precision, **kwargs)
    _evaluated.append((key, table))
    return table


@pytest.fixture(scope="module")
def pinned_tables(data):
    """The documented evaluation's four tables (tests/perf_eval_pinned.py says why and how they are
    kept), and whether they were read from the pinned file (False: computed here, about 8 s)."""
    arguments = perf_eval_pinned.table_arguments(data)
    tables = perf_eval_pinned.pinned(arguments)
    current = tables is not None
    if tables is None:
        tables = perf_eval_pinned.compute(arguments, evaluate_once)
    else:  # what evaluate_once would have computed, for the tests that call it on the same arguments
        for name, calls in arguments.items():
            for (args, kwargs), table in zip(calls, tables[name], strict=True):
                _evaluated.append((_key(*args, **kwargs), table))
    return tables, current


@pytest.fixture(scope="module")
def evaluation(pinned_tables):
    """Today's table: every measured desktop/datacenter card (23 scored, the reference excluded)."""
    return pinned_tables[0]["evaluation"]


@pytest.fixture(scope="module")
def first_15(pinned_tables):
    """The table as published before the held-out checks' eight cards joined the fit."""
    return pinned_tables[0]["first_15"]


@pytest.mark.e2e
def test_the_pinned_tables_are_current(pinned_tables):
    assert pinned_tables[1], (
        "the evaluation's inputs or code changed, so its tables were computed again (the tests of this module "
        "check them); once they pass, pin them: uv run python tests/perf_eval_pinned.py")


def test_the_pinned_tables_digest_covers_the_code_that_computes_them(tmp_path, monkeypatch):
    modules = perf_eval_pinned.model_modules()
    assert modules[0] == "perf.eval" and {"perf.estimate", "perf.workload", "perf.scores", "perf.arch_tables"} <= set(modules)
    arguments = {"t": [(("figures",), {"precision": "fp16"})]}
    base = perf_eval_pinned.digest(arguments)
    assert base != perf_eval_pinned.digest({"t": [(("figures",), {"precision": "fp32"})]})  # the arguments count
    copy = tmp_path / "models"
    copy.mkdir()
    for name in modules:
        target = copy.joinpath(*name.split(".")).with_suffix(".py")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(perf_eval_pinned.module_file(name).read_text(encoding="utf-8"))
    monkeypatch.setattr(perf_eval_pinned, "MODELS", copy)
    assert perf_eval_pinned.digest(arguments) == base
    source = (copy / "perf" / "workload.py").read_text(encoding="utf-8")
    (copy / "perf" / "workload.py").write_text(source.replace("MAX_SWEEPS = 50", "MAX_SWEEPS = 50  # reworded"))
    assert perf_eval_pinned.digest(arguments) == base  # prose aside
    (copy / "perf" / "workload.py").write_text(source.replace("MAX_SWEEPS = 50", "MAX_SWEEPS = 51"))
    assert perf_eval_pinned.digest(arguments) != base


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


@pytest.mark.e2e
def test_the_form_is_chosen_inside_each_fold(evaluation, first_15):
    forms = evaluation[0].nested_forms
    assert len(forms) == 23 and len(set(forms.values())) > 1
    assert forms["GeForce GTX 1080 Ti"] == "full/mem/fam"  # without the 1080 Ti another form wins
    assert forms["A100 PCIe 40 GB"] == "half/mem/fam"
    assert evaluation[1].nested_forms["GeForce RTX 4090"] == "half/mem/common"
    assert first_15[0].nested_forms["GeForce RTX 2080 Ti"] == "half/nomem/fam"


@pytest.mark.e2e
def test_todays_table_on_every_measured_card(evaluation):
    """The pre-registered evaluation of fitting on every measured card (docs/performance-log.md, "Fit on every measured card"): the judged row misses the target at both precisions."""
    fp16 = {r.method: r for r in evaluation[0].rows}
    fp32 = {r.method: r for r in evaluation[1].rows}
    # Recomputed on the reference's scale (docs/performance-log.md, "Precision-weighted figures, and estimates on
    # the reference's scale"; before it: fp16 0.9743, 6.5 %, 64.1 %; fp32 after the fp32 fix 0.9792, 6.2 %, 19.3 %;
    # published before that fix: 0.9743, 8.2 %, 22.0 % RTX A6000).
    # Since "Per-SKU tensor rates and same-chip bounds" (GeForce at its FP32-accumulate rate, no division by the
    # reference's own estimate): before it fp16 0.9773, 6.4 %, 67.0 % GTX 1080 Ti; fp32 0.9812, 10.2 %, 26.1 %.
    assert fp16[WORKLOAD_NESTED] == EvalRow(WORKLOAD_NESTED, "fp16", 23, 0.9743, WORKLOAD_NESTED_ERRORS["fp16"], 0.3648,
                                             "Tesla V100 SXM2 16 GB")
    assert fp32[WORKLOAD_NESTED] == EvalRow(WORKLOAD_NESTED, "fp32", 23, 0.9792, WORKLOAD_NESTED_ERRORS["fp32"], 0.1931,
                                             "Tesla V100 SXM2 16 GB")
    assert fp16[NESTED] == EvalRow(NESTED, "fp16", 23, 0.9753, 0.0533, 0.5657, "GeForce GTX 1080 Ti")
    assert fp32[NESTED] == EvalRow(NESTED, "fp32", 23, 0.9684, 0.0653, 0.2592, "Tesla V100 SXM2 16 GB")
    assert (fp16[V1_FIXED].spearman, fp16[V1_FIXED].median_abs_pct_error) == (0.9654, 0.0583)
    assert (fp32[V1_FIXED].spearman, fp32[V1_FIXED].median_abs_pct_error) == (0.9605, 0.0571)
    assert (fp16[WORKLOAD_ANCHORED].spearman, fp32[WORKLOAD_ANCHORED].median_abs_pct_error) == (0.9565, 0.0563)
    assert (fp16["bandwidth only"].spearman, fp16["bandwidth only"].median_abs_pct_error) == (0.9408, 0.1264)
    assert (fp32["bandwidth only"].spearman, fp32["bandwidth only"].median_abs_pct_error) == (0.9056, 0.2929)
    target = [row.spearman >= 0.97 and row.median_abs_pct_error <= 0.06
              for row in (fp16[WORKLOAD_NESTED], fp32[WORKLOAD_NESTED])]
    assert target == [False, False]
    # No other method meets it at both precisions either (roofline v2 does at fp16 only), so
    # none could be picked after the fact.
    def meets(row):
        return row.spearman >= 0.97 and row.median_abs_pct_error <= 0.06

    assert meets(fp16[NESTED]) and not meets(fp32[NESTED])
    assert not any(meets(r) and meets(fp32[m]) for m, r in fp16.items() if not m.startswith("best single"))


@pytest.mark.e2e
def test_table_rows_on_the_first_15_cards_are_the_documented_figures(first_15):
    fp16 = {r.method: r for r in first_15[0].rows}
    fp32 = {r.method: r for r in first_15[1].rows}
    assert fp16[NESTED] == EvalRow(NESTED, "fp16", 15, 0.9821, 0.1029, 0.5653, "GeForce GTX 1080 Ti")
    # fp32 rows recomputed after the fp32 fix (published before it: 0.9679, 15.2 %, 58.5 % RTX 3080).
    assert fp32[NESTED] == EvalRow(NESTED, "fp32", 15, 0.9643, 0.1032, 0.2776, "Tesla V100 PCIe 32 GB")
    # Every file's figures: the first and mid-2021 PyTorch tables count as two files sharing
    # most rows (informational rows, not the pipeline's procedure).
    assert fp16[NESTED_PER_FILE] == EvalRow(NESTED_PER_FILE, "fp16", 15, 0.9857, 0.0604, 0.3607, "Tesla V100 SXM2 16 GB")
    assert fp32[NESTED_PER_FILE] == EvalRow(NESTED_PER_FILE, "fp32", 15, 0.9643, 0.0899, 0.391, "Tesla V100 SXM2 16 GB")
    # The first pass's form, fixed a priori (plain LOOCV: nothing chosen).
    assert (fp16[V1_FIXED].spearman, fp16[V1_FIXED].median_abs_pct_error) == (0.9714, 0.0879)
    assert (fp32[V1_FIXED].spearman, fp32[V1_FIXED].median_abs_pct_error) == (0.975, 0.0924)
    # Roofline v2 (the fallback) does not meet the target (Spearman >= 0.97 and
    # median error <= 6 %) at either precision.
    for row in (fp16[NESTED], fp32[NESTED]):
        assert not (row.spearman >= 0.97 and row.median_abs_pct_error <= 0.06)


@pytest.mark.e2e
def test_per_workload_rows_on_the_first_15_cards_are_the_documented_figures(first_15):
    fp16 = {r.method: r for r in first_15[0].rows}
    fp32 = {r.method: r for r in first_15[1].rows}
    # Recomputed since "Per-SKU tensor rates and same-chip bounds" (GeForce at its FP32-accumulate rate, the fit's
    # own scale; on the reference's scale: fp16 0.9821, 7.0 %, 42.0 %; fp32 0.9821, 10.8 %, 25.5 %; before it:
    # fp16 0.9714, 7.2 %, 19.6 % RTX A6000; fp32 after the fp32 fix 0.9714, 6.0 %, 25.5 %; published before that
    # fix: 0.9929, 5.8 %, 26.3 % RTX 3080).
    assert fp16[WORKLOAD_NESTED] == EvalRow(WORKLOAD_NESTED, "fp16", 15, 0.9464, 0.1011, 0.4246, "GeForce GTX 1080 Ti")
    assert fp32[WORKLOAD_NESTED] == EvalRow(WORKLOAD_NESTED, "fp32", 15, 0.9714, 0.0602, 0.255, "Tesla V100 PCIe 32 GB")
    assert fp16[WORKLOAD_FIXED] == EvalRow(WORKLOAD_FIXED, "fp16", 15, 0.9393, 0.1041, 0.45, "Tesla V100 SXM2 16 GB")
    assert fp32[WORKLOAD_FIXED] == EvalRow(WORKLOAD_FIXED, "fp32", 15, 0.9679, 0.1324, 0.3032, "GeForce RTX 3080")
    assert fp16[WORKLOAD_EVERY_FILE] == EvalRow(WORKLOAD_EVERY_FILE, "fp16", 15, 0.9786, 0.0599, 0.3666, "Tesla V100 SXM2 16 GB")
    assert fp32[WORKLOAD_EVERY_FILE] == EvalRow(WORKLOAD_EVERY_FILE, "fp32", 15, 0.9857, 0.1008, 0.1989, "A10 PCIe")
    # v3 beats v2's nested median error at both precisions ...
    assert fp16[WORKLOAD_NESTED].median_abs_pct_error < fp16[NESTED].median_abs_pct_error
    assert fp32[WORKLOAD_NESTED].median_abs_pct_error < fp32[NESTED].median_abs_pct_error
    # ... and, recomputed after the fp32 fix, misses the issue's target at both (fp32's median by
    # 0.02 points; as published, before the fix, it met it at fp32).
    target = [row.spearman >= 0.97 and row.median_abs_pct_error <= 0.06 for row in (fp16[WORKLOAD_NESTED], fp32[WORKLOAD_NESTED])]
    assert target == [False, False]


@pytest.mark.e2e
def test_anchoring_failed_its_pre_registered_rule(first_15):
    """Anchored to measured siblings: lower fp16 median but lower Spearman, far worse at fp32,
    so the pipeline keeps plain estimates (docs/performance-log.md, "Anchoring ..."; judged on the
    15 cards of the time)."""
    fp16 = {r.method: r for r in first_15[0].rows}
    fp32 = {r.method: r for r in first_15[1].rows}
    # Recomputed on the reference's scale (published: fp16 0.9643, 5.6 %, 24.7 %; fp32 0.9643, 14.0 %, 30.0 %).
    assert fp16[WORKLOAD_ANCHORED] == EvalRow(WORKLOAD_ANCHORED, "fp16", 15, 0.95, 0.0935, 0.4246, "GeForce GTX 1080 Ti")
    assert fp32[WORKLOAD_ANCHORED] == EvalRow(WORKLOAD_ANCHORED, "fp32", 15, 0.9643, 0.1401, 0.2995, "Tesla V100 PCIe 32 GB")
    adopt = all(
        rows[WORKLOAD_ANCHORED].median_abs_pct_error < rows[WORKLOAD_NESTED].median_abs_pct_error
        and rows[WORKLOAD_ANCHORED].spearman >= rows[WORKLOAD_NESTED].spearman
        for rows in (fp16, fp32)
    )
    assert not adopt
    # A card with no measured sibling in the fold (the only Pascal card) keeps its plain prediction.
    plain = dict((c, p) for c, _, p in first_15[0].predictions[WORKLOAD_NESTED])
    anchored = dict((c, p) for c, _, p in first_15[0].predictions[WORKLOAD_ANCHORED])
    assert anchored["GeForce GTX 1080 Ti"] == plain["GeForce GTX 1080 Ti"]
    assert anchored["RTX A6000"] != plain["RTX A6000"]


@pytest.mark.e2e
def test_estimator_beats_both_baselines_on_the_same_cards(evaluation):
    for table in evaluation:
        rows = {r.method: r for r in table.rows}
        bw, fp32 = rows["bandwidth only"], rows["fp32 TFLOPS only"]
        for model in (rows[WORKLOAD_NESTED], rows[NESTED]):  # the shipped model and the fallback
            assert model.n == bw.n == fp32.n == 23  # 24 desktop/datacenter cards less the reference
            assert model.median_abs_pct_error < min(bw.median_abs_pct_error, fp32.median_abs_pct_error)
            assert model.spearman > bw.spearman > fp32.spearman
        assert {m for m, _, _ in table.predictions[NESTED]} == {m for m, _, _ in table.predictions["bandwidth only"]}


@pytest.mark.e2e
def test_optimistic_row_is_labelled_and_flatters(evaluation):
    for table in evaluation:
        rows = {r.method: r for r in table.rows}
        (name,) = [m for m in rows if m.startswith("best single form, optimistic (")]
        assert rows[name].median_abs_pct_error <= rows[V1_FIXED].median_abs_pct_error


@pytest.mark.e2e
def test_eval_table_formats(evaluation):
    text = format_eval_table(evaluation)
    assert text.splitlines()[0].split()[:3] == ["precision", "method", "n"]
    assert len(text.splitlines()) == 2 + 20
    md = format_eval_table(evaluation, markdown=True)
    assert md.startswith("| precision | method |") and md.count("\n") == 21


def test_spearman_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 1, 2]) == pytest.approx(0.8660, abs=1e-4)


@pytest.mark.e2e
def test_evaluation_report_fetches_the_pinned_files_through_the_client(evaluation, monkeypatch):
    # The report's own tables come from the pinned files it fetched; on the same figures and
    # features as the `evaluation` fixture they are that fixture's tables, computed once.
    monkeypatch.setattr(perf_eval, "evaluate_loocv", evaluate_once)
    by_url = {f.url: fixture_path(FILES[f.key][1]) for f in LAMBDA_FILES}
    asked = []

    class RecordedClient:
        def get(self, url, *, source):
            asked.append((url, source))
            return SimpleNamespace(body=by_url[url].read_bytes())

    result = relative_perf_from_lambda(fetch_lambda_tables(RecordedClient()))
    assert [u for u, _ in asked] == [f.url for f in LAMBDA_FILES]
    assert {s for _, s in asked} == {"lambda"}
    text = evaluation_report(result.figures, per_file=result.per_file, per_workload=result.per_workload,
                             markdown=True)
    assert f"| fp16 | {NESTED} | 23 | 0.975 | 5.3% | 56.6% | GeForce GTX 1080 Ti |" in text
    assert f"| fp32 | {NESTED_PER_FILE} | 23 | 0.968 | 7.5% |" in text
    assert "| fp32 | bandwidth only | 23 |" in text
    assert f"| fp16 | {WORKLOAD_NESTED} | 23 | 0.974 | 6.5% | 36.5% | Tesla V100 SXM2 16 GB |" in text
    assert f"| fp32 | {WORKLOAD_NESTED} | 23 | 0.979 | 6.2% | 19.3% | Tesla V100 SXM2 16 GB |" in text


FEW_CARDS = ("GeForce RTX 3090", "GeForce RTX 4090", "GeForce RTX 3080", "RTX A6000", "A100 PCIe 40 GB",
             "Tesla V100 SXM2 16 GB", "GeForce GTX 1080 Ti", "GeForce RTX 2080 Ti")
@pytest.mark.e2e  # over ~2 s: the full suite runs it, the fast tier does not
def test_the_table_on_a_few_cards_has_every_method_scored_on_the_same_cards(data):
    """The whole evaluation on eight cards (the reference and seven scored): every method's row,
    each scored on the same held-out cards, and the table's layout; seconds instead of minutes."""
    result, features = data
    without = {f.model for f in [*result.figures, *result.per_file]} - set(FEW_CARDS)
    tables = [evaluate_loocv(result.figures, features, p, per_file=result.per_file,
                             per_workload=result.per_workload, without=without) for p in ("fp16", "fp32")]
    scored = set(FEW_CARDS) - {"GeForce RTX 3090"}
    for table in tables:
        assert table.reference == "GeForce RTX 3090"
        methods = [r.method for r in table.rows]
        assert {NESTED, NESTED_PER_FILE, V1_FIXED, WORKLOAD_NESTED, WORKLOAD_ANCHORED, WORKLOAD_FIXED,
                WORKLOAD_EVERY_FILE, "bandwidth only", "fp32 TFLOPS only"} <= set(methods)
        assert len(methods) == 10 and any(m.startswith("best single form, optimistic (") for m in methods)
        assert all(r.n == len(scored) and r.precision == table.precision for r in table.rows)
        assert all({card for card, _, _ in preds} == scored for preds in table.predictions.values())
        assert set(table.nested_forms) == scored
        assert all(-1.0 <= r.spearman <= 1.0 and r.median_abs_pct_error >= 0 for r in table.rows)
    text = format_eval_table(tables)
    assert text.splitlines()[0].split()[:3] == ["precision", "method", "n"]
    assert len(text.splitlines()) == 2 + 20
