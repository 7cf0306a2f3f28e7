"""Relative perf from the Lambda tables, against values computed by hand from the CSVs."""

import csv
import math
import statistics

import pytest
from gpuvalue.models.perf.measured import ScalingFigure, relative_perf_from_lambda
from gpuvalue.models.records import PerfFigure
from gpuvalue.scrapers.sources.lambda_bench import LambdaRow
from lambda_fixtures import FILES, fixture_path, lambda_tables


@pytest.fixture(scope="module")
def measured():
    return relative_perf_from_lambda(lambda_tables())


def fig(measured, model, precision):
    (found,) = [f for f in measured.figures if f.model == model and f.precision == precision]
    return found


def raw(file_name):
    with open(fixture_path(file_name), newline="") as fh:
        return list(csv.DictReader(fh))


def geomean_ratio(a, b):
    keys = [k for k in a if k in b and a[k] and b[k]]
    return math.exp(statistics.fmean(math.log(a[k] / b[k]) for k in keys)), len(keys)


def workloads(row):
    return {k: float(v) for k, v in row.items() if k not in ("name_gpu", "num_gpu", "watt", "price") and float(v) > 0}


def test_reference_is_exactly_one(measured):
    for precision in ("fp16", "fp32"):
        assert fig(measured, "GeForce RTX 3090", precision).relative_perf == 1.0


def test_rtx_4090_whole_figure(measured):
    rows = {r["name_gpu"]: workloads(r) for r in raw(FILES["lambda-pytorch-2024-fp16"][1])}
    expected, n = geomean_ratio(rows["RTX 4090"], rows["RTX 3090"])
    assert n == 10
    assert fig(measured, "GeForce RTX 4090", "fp16") == PerfFigure(
        model="GeForce RTX 4090",
        precision="fp16",
        relative_perf=round(expected, 4),
        source="lambda-pytorch-2024",
        method="measured: geomean of 10 workloads vs GeForce RTX 3090 (lambda-pytorch-2024-fp16)",
        reference="GeForce RTX 3090",
        measured=True,
        workloads=10,
        as_of=fig(measured, "GeForce RTX 4090", "fp16").as_of,
    )
    assert expected == pytest.approx(1.6142, abs=1e-4)


def test_h100_sxm5_is_the_per_workload_median_of_its_host_rows(measured):
    for precision in ("fp16", "fp32"):
        rows = raw(FILES[f"lambda-pytorch-2024-{precision}"][1])
        h100 = [workloads(r) for r in rows if r["num_gpu"] == "1.0" and "H100 80GB SXM5" in r["name_gpu"]]
        assert len(h100) == 6
        keys = set().union(*h100)
        median = {k: statistics.median([w[k] for w in h100 if k in w]) for k in keys}
        ref = workloads(next(r for r in rows if r["name_gpu"] == "RTX 3090"))
        expected, n = geomean_ratio(median, ref)
        got = fig(measured, "H100 SXM5 80 GB", precision)
        assert got.relative_perf == pytest.approx(expected, abs=1e-4)
        assert got.workloads == n == 10


def test_newer_file_wins_and_the_older_value_is_kept_in_the_method(measured):
    a100 = fig(measured, "A100 PCIe 40 GB", "fp16")
    assert a100.source == "lambda-pytorch-2024"
    rows = {r["name_gpu"]: workloads(r) for r in raw(FILES["lambda-tf-2021-fp16"][1])}
    tf_value, n = geomean_ratio(rows["A100 40GB PCIe"], rows["RTX 3090"])
    assert n == 6
    assert f"lambda-tf-2021 gives {tf_value:.3f}" in a100.method
    # A card both older files have: the PyTorch one wins over the newer TensorFlow one (same
    # framework and workloads as the reference file); the TensorFlow value stays in the method.
    gtx = fig(measured, "GeForce GTX 1080 Ti", "fp16")
    assert gtx.source == "lambda-pytorch-v1" and gtx.workloads == 10
    v1 = {r["name_gpu"]: workloads(r) for r in raw(FILES["lambda-pytorch-v1-fp16"][1])}
    assert gtx.relative_perf == pytest.approx(geomean_ratio(v1["GTX 1080Ti"], v1["RTX 3090"])[0], abs=1e-4)
    tf_1080ti, _ = geomean_ratio(rows["GTX 1080Ti"], rows["RTX 3090"])
    assert f"lambda-tf-2021 gives {tf_1080ti:.3f}" in gtx.method
    assert not any(f.source == "lambda-tf-2021" for f in measured.figures)


def test_one_figure_per_model_and_precision_and_multi_gpu_rows_excluded(measured):
    slots = [(f.model, f.precision) for f in measured.figures]
    assert len(slots) == len(set(slots))
    assert {f.model for f in measured.figures if f.precision == "fp16"} == {
        "H100 SXM5 80 GB", "H100 PCIe 80 GB", "A100 SXM4 80 GB", "A100 PCIe 80 GB", "A100 PCIe 40 GB",
        "GeForce RTX 4090", "RTX 6000 Ada Generation", "RTX A6000", "Tesla V100 PCIe 32 GB",
        "GeForce RTX 3090", "Tesla V100 SXM2 16 GB", "Quadro RTX 8000", "A10 PCIe", "GeForce RTX 3080",
        "GeForce RTX 2080 Ti", "GeForce RTX 2080 SUPER Max-Q", "GeForce RTX 2080 Max-Q",
        "GeForce RTX 2070 Max-Q", "GeForce GTX 1080 Ti",
        # only in Lambda's first PyTorch tables (measured, but never fitted: the held-out check)
        "TITAN RTX", "Quadro RTX 6000", "Quadro RTX 5000", "A100 SXM4 40 GB",
        # only in its mid-2021 tables (measured, never fitted: the second held-out check)
        "GeForce RTX 3070", "RTX A5000", "RTX A4000", "A40 PCIe", "GeForce RTX 3080 Max-Q",
    }
    # A table with only a multi-GPU row of a card gives that card no figure.
    only_multi = [
        LambdaRow(name_gpu="RTX 3090", num_gpu=1, watt=350, list_price=1, throughputs={"a": 10.0}),
        LambdaRow(name_gpu="2x RTX 4090", num_gpu=2, watt=900, list_price=1, throughputs={"a": 30.0}),
    ]
    result = relative_perf_from_lambda([("t-fp16", "fp16", only_multi)])
    assert [f.model for f in result.figures] == ["GeForce RTX 3090"]


def test_chaining_a_file_without_the_reference_through_shared_cards():
    with_ref = [
        LambdaRow(name_gpu="RTX 3090", num_gpu=1, watt=None, list_price=None, throughputs={"a": 100.0, "b": 10.0}),
        LambdaRow(name_gpu="RTX 4090", num_gpu=1, watt=None, list_price=None, throughputs={"a": 160.0, "b": 16.0}),
        LambdaRow(name_gpu="RTX A6000", num_gpu=1, watt=None, list_price=None, throughputs={"a": 110.0, "b": 12.1}),
    ]
    without_ref = [
        LambdaRow(name_gpu="RTX 4090", num_gpu=1, watt=None, list_price=None, throughputs={"x": 40.0}),
        LambdaRow(name_gpu="RTX A6000", num_gpu=1, watt=None, list_price=None, throughputs={"x": 25.0}),
        LambdaRow(name_gpu="GTX 1080Ti", num_gpu=1, watt=None, list_price=None, throughputs={"x": 10.0}),
    ]
    # Listed first, the file without the reference still resolves once the other has.
    result = relative_perf_from_lambda([("old-2019-fp16", "fp16", without_ref), ("new-2024-fp16", "fp16", with_ref)])
    by_model = {f.model: f for f in result.figures}
    a6000 = math.sqrt(1.1 * 1.21)
    # local figures vs the 4090: 1, 25/40, 10/40; scale = geomean(1.6/1, a6000/(25/40)).
    scale = math.sqrt(1.6 * a6000 / (25 / 40))
    assert by_model["GeForce GTX 1080 Ti"].relative_perf == pytest.approx(round(10 / 40 * scale, 4))
    assert "chained via 2 shared card(s)" in by_model["GeForce GTX 1080 Ti"].method
    assert by_model["GeForce RTX 4090"].source == "new-2024"
    # The per-workload ratios of a chained file carry the same chain scale.
    ratios = {(r.model, r.source, r.workload): r.ratio for r in result.per_workload}
    assert ratios[("GeForce GTX 1080 Ti", "old-2019", "x")] == pytest.approx(10 / 40 * scale, rel=1e-4)  # known figures are rounded
    assert ratios[("RTX A6000", "new-2024", "b")] == pytest.approx(1.21)


def test_every_figure_is_the_geomean_of_its_per_workload_ratios(measured):
    ratios = {}
    for r in measured.per_workload:
        ratios.setdefault((r.model, r.precision, r.source), []).append(r.ratio)
    assert len(measured.per_workload) == sum(f.workloads for f in measured.per_file)
    for f in measured.per_file:
        values = ratios[(f.model, f.precision, f.source)]
        assert len(values) == f.workloads
        assert math.exp(statistics.fmean(map(math.log, values))) == pytest.approx(f.relative_perf, abs=6e-5)
    # Against the CSV by hand: RTX 4090 over RTX 3090 on NCF, PyTorch fp16.
    rows = {r["name_gpu"]: workloads(r) for r in raw(FILES["lambda-pytorch-2024-fp16"][1]) if float(r["num_gpu"]) == 1}
    (ncf,) = [r for r in measured.per_workload if (r.model, r.precision, r.source, r.workload)
              == ("GeForce RTX 4090", "fp16", "lambda-pytorch-2024", "ncf")]
    assert ncf.ratio == pytest.approx(rows["RTX 4090"]["ncf"] / rows["RTX 3090"]["ncf"])


def test_scaling_efficiency_from_multi_gpu_rows(measured):
    rows = {r["name_gpu"]: workloads(r) for r in raw(FILES["lambda-pytorch-2024-fp16"][1])}
    one, two = rows["RTX 3090"], rows["2x RTX 3090"]
    expected = math.exp(statistics.fmean(math.log(two[k] / (2 * one[k])) for k in one))
    assert ScalingFigure(
        model="GeForce RTX 3090", precision="fp16", source="lambda-pytorch-2024", num_gpu=2,
        efficiency=round(expected, 4), workloads=10,
    ) in measured.scaling
    # Broken host-specific NCF cells (tens of times n single cards) are left out.
    h100_4 = next(s for s in measured.scaling if s.model == "H100 SXM5 80 GB" and s.num_gpu == 4 and s.precision == "fp16")
    assert 0.8 < h100_4.efficiency <= 1.0
    keys = [(s.model, s.precision, s.source, s.num_gpu) for s in measured.scaling]
    assert len(keys) == len(set(keys))


def test_a_broken_cell_is_dropped_from_a_figure(measured):
    """The mid-2021 RTX A4000 fp16 WaveGlow cell is 25x below the card's other ratios: a broken
    measurement, left out of its figure; no other figure loses a cell."""
    a4000 = fig(measured, "RTX A4000", "fp16")
    assert a4000.source == "lambda-pytorch-2021mid" and a4000.workloads == 10
    kept = {r.workload for r in measured.per_workload if r.model == "RTX A4000" and r.precision == "fp16"
            and r.source == "lambda-pytorch-2021mid"}
    assert "waveglow" not in kept and len(kept) == 10
    rows = {r["name_gpu"]: workloads(r) for r in raw(FILES["lambda-pytorch-2021mid-fp16"][1])}
    expected, n = geomean_ratio({k: v for k, v in rows["RTX A4000"].items() if k != "waveglow"}, rows["RTX 3090"])
    assert a4000.relative_perf == pytest.approx(expected, abs=1e-4) and n == 10
    dropped = [(f.model, f.precision, f.source) for f in measured.per_file
               if f.workloads != len({r.workload for r in measured.per_workload
                                     if (r.model, r.precision, r.source) == (f.model, f.precision, f.source)})]
    assert dropped == []  # per_workload and per_file agree on what was kept
    assert fig(measured, "A40 PCIe", "fp16").workloads == 11  # Lambda's "RTX A40"
