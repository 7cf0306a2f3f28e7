"""Figures measured on ROCm are marked wherever a figure's source is shown; measured figures never
read as low-confidence estimates."""

from gpuvalue.models.perf.label import perf_source_label
from gpuvalue.models.recommend import perf_provenance
from gpuvalue.warehouse.outputs.feed import daily_item

ROCM_ROW = {"perf_source": "pytorch-gpu-benchmark", "perf_method": "measured: geomean of 31 workloads vs "
            "GeForce RTX 3090 (pytorch-gpu-benchmark); on ROCm"}
ESTIMATE_ROW = {"perf_source": "estimate", "perf_method": "estimate: roofline v3; low confidence: AMD"}


def test_labels():
    assert perf_source_label(ROCM_ROW) == "pytorch-gpu-benchmark (ROCm)"
    assert perf_source_label(ESTIMATE_ROW) == "estimate, low confidence"
    assert perf_source_label({"perf_source": "combined", "perf_method": "measured: geomean of a and b"}) == "combined"


def test_recommendations_say_measured_on_rocm():
    assert perf_provenance(ROCM_ROW) == "speed measured (pytorch-gpu-benchmark (ROCm))"
    assert "low confidence" in perf_provenance(ESTIMATE_ROW)


def test_the_feed_marks_rocm_figures():
    from datetime import date

    row = {**ROCM_ROW, "rank": 1, "model": "Radeon RX 7900 XTX", "price_usd": 700.0, "price_kind": "sold",
           "price_n": 12, "price_q1": 650.0, "price_q3": 750.0, "price_as_of": date(2026, 11, 30), "stale": False,
           "perf_per_dollar": 1.9, "relative_perf": 1.31, "reference_gpu": "GeForce RTX 3090",
           # a card the default view shows (models/buyer_view.py)
           "memory_gb": 24.0, "framework_support": "current", "framework_supported": True, "desktop_usable": True,
           "passive": False}
    item = daily_item(date(2026, 11, 30), [row])
    assert "(pytorch-gpu-benchmark (ROCm))" in item["content_text"]
