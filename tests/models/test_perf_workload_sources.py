"""The per-workload model on combined figures: each source weighs the same within a card, a
combined figure is predicted the way it is combined, and an unmeasured card is still predicted over
the reference's Lambda workloads."""

import math

import pytest

from gpuvalue.models.perf import workload as PW
from gpuvalue.models.perf.combine import COMBINED
from gpuvalue.models.perf.measured import WorkloadRatio
from gpuvalue.models.records import PerfFigure

REF = "GeForce RTX 3090"


def test_each_source_weighs_the_same_within_a_figure():
    keys = ["lambda-pytorch-2024/bert", "lambda-pytorch-2024/ssd", "gpu-insights/vit", "pytorch-gpu-benchmark/a",
            "pytorch-gpu-benchmark/b", "pytorch-gpu-benchmark/c", "pytorch-gpu-benchmark/d"]
    w = PW.source_weights(keys)
    assert sum(w) == pytest.approx(1.0)
    assert w[0] == w[1] == pytest.approx(1 / 6) and w[2] == pytest.approx(1 / 3) and w[3] == pytest.approx(1 / 12)
    # One source: every workload 1/n, as v3 always weighed them.
    assert PW.source_weights(["lambda-pytorch-2024/a", "lambda-pytorch-2024/b"]) == (0.5, 0.5)
    assert PW.workload_key(COMBINED, "gpu-insights/vit") == "gpu-insights/vit"
    assert PW.workload_key("gpu-insights", "vit") == "gpu-insights/vit"


def _features(model, compute, bandwidth, family="Ampere"):
    return {"model": model, "vendor": "NVIDIA", "architecture": family, "segment": "desktop",
            "bandwidth_gb_s": bandwidth, "fp32_tflops": compute, "fp16_tflops": compute,
            "tensor_fp16_tflops": 2 * compute, "l2_cache_mb": 6.0, "memory_gb": 24.0}


def test_a_combined_figure_is_fitted_and_predicted_with_its_sources_weights():
    # Noise-free data from one alpha per workload: the fit recovers each card's combined figure exactly
    # when it predicts it the way it was combined (source-weighted), not by a plain workload mean.
    cards = {f"GeForce RTX 30{i}0": (20.0 + 10 * i, 500.0 + 150 * i) for i in range(1, 8)}
    cards[REF] = (35.6, 936.0)
    features = {m: _features(m, c, b) for m, (c, b) in cards.items()}
    alphas = {"lambda-pytorch-2024/bert": 0.8, "lambda-pytorch-2024/ncf": 0.1, "gpu-insights/vit": 0.5}
    ref_c, ref_b = cards[REF]

    def ratio(model, key):
        c, b = cards[model]
        a = alphas[key]
        return 1 / (a * ref_c / c + (1 - a) * ref_b / b)

    figures, ratios = [], []
    for model in cards:
        combined = model in (REF, "GeForce RTX 3010", "GeForce RTX 3050")
        keys = list(alphas) if combined else [k for k in alphas if k.startswith("lambda")]
        source = COMBINED if combined else "lambda-pytorch-2024"
        for k in keys:
            src, w = k.split("/", 1)
            ratios.append(WorkloadRatio(model=model, precision="fp16", source=source,
                                        workload=k if combined else w, ratio=ratio(model, k)))
        lam = math.exp(sum(math.log(ratio(model, k)) for k in keys if k.startswith("lambda")) / 2)
        value = math.sqrt(lam * ratio(model, "gpu-insights/vit")) if combined else lam
        figures.append(PerfFigure(model=model, precision="fp16", relative_perf=value, source=source, method="m",
                                  reference=REF, measured=True, workloads=len(keys)))
    figures.sort(key=lambda f: f.model != REF)
    data = PW._prepare(figures, ratios, features, "fp16", [PW.FIXED_FORM], every_file=False)
    assert data.primary == "lambda-pytorch-2024"  # the reference's figure is combined: its Lambda part
    fit = data.problems[PW.FIXED_FORM].fit(range(len(figures)))
    for model in ("GeForce RTX 3010", "GeForce RTX 3050"):
        predicted = PW._predict_headline(data, PW.FIXED_FORM, fit, model)
        assert predicted == pytest.approx(math.log(data.headline[model]), abs=0.02)
    est = PW.fit_workload_estimator(figures, ratios, features, "fp16", forms=[PW.FIXED_FORM], cross_validate=False)
    assert set(est.workloads) == {"lambda-pytorch-2024/bert", "lambda-pytorch-2024/ncf"}
