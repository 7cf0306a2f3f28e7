"""Orderings a practitioner checks at sight, on the replay's shown figures (`gpuvalue perf`): the ones
the spec estimate used to get wrong, and every ordering of the same kind the catalog's chip facts
imply without a close call (models/perf/same_chip.py, docs/performance.md)."""

from __future__ import annotations

import duckdb
import pytest

from gpuvalue.models.perf.same_chip import _specs, dominates
from gpuvalue.warehouse.sql_files import dicts


@pytest.fixture(scope="module")
def shown(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        rows = con.execute("SELECT model, precision, relative_perf, source, perf_low, perf_high FROM perf_best "
                           "WHERE source <> 'local'").fetchall()
        features = {r["model"]: r for r in dicts(con, "catalog_features")}
    finally:
        con.close()
    figures = {(m, p): (v, s, lo, hi) for m, p, v, s, lo, hi in rows}
    return figures, features


def _v(shown, model, precision="fp16"):
    return shown[0][(model, precision)][0]


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_the_orderings_the_estimate_used_to_get_wrong(shown, precision):
    v = lambda m: _v(shown, m, precision)  # noqa: E731
    if precision == "fp16":
        assert v("GeForce RTX 3060 Ti") < v("GeForce RTX 3070")
    else:  # at fp32 the measured RTX 3080 Max-Q (GA104, less of everything) holds it up level with the 3070
        assert v("GeForce RTX 3060 Ti") <= v("GeForce RTX 3070")
    assert v("Tesla P40") < v("GeForce GTX 1080 Ti")
    assert v("Tesla P40") < v("Tesla P100 PCIe 16 GB")
    assert v("GeForce RTX 4070 Ti") > v("GeForce RTX 4070 SUPER")
    assert v("GeForce RTX 3080 12 GB") < 1.2 * v("GeForce RTX 3080")
    assert v("H100 NVL 94 GB") < v("H100 SXM5 80 GB")
    assert v("AMD Instinct MI308X") < v("AMD Instinct MI300X")
    assert v("AMD Instinct MI308X") < v("AMD Instinct MI355X")
    assert v("GeForce RTX 3090 Ti") >= v("GeForce RTX 3090")
    if precision == "fp16":  # the case; the measured figure's weighting is combine.py's business
        assert v("Radeon RX 7900 XTX") <= v("GeForce RTX 3090 Ti")
    assert v("AMD Instinct MI300X") <= v("H100 SXM5 80 GB")  # a published measured order
    # the pre-launch MI300 row carries the MI300A's data-sheet figures, not the MI250X's
    assert v("AMD Instinct MI300") < v("AMD Instinct MI300X")
    # the H100 PCIe 96 GB is the H100 NVL board (spec-corrections): never above the measured NVL
    assert v("H100 PCIe 96 GB") <= v("H100 NVL 94 GB")


def test_a_bounded_estimate_says_so_and_its_interval_shows_it(shown):
    figures, _ = shown
    value, source, low, high = figures[("GeForce RTX 3060 Ti", "fp16")]
    parent = figures[("GeForce RTX 3070", "fp16")][0]
    assert source == "estimate" and low <= value <= high <= parent


# A pair is a close call unless the bigger card has at least 15 % more of compute or bandwidth.
MARGIN = 1.15


def _measured(figures, model, precision):
    return figures[(model, precision)][1] != "estimate"


def contradicted_chips(shown, precision):
    """Chips whose measured cards contradict each other: one with at least another's compute and bandwidth
    measured below it (the two V100 figures of docs/performance.md). No estimate can agree with both."""
    figures, features = shown
    specs = {m: s for (m, p) in figures if p == precision and m in features and _measured(figures, m, precision)
             and (s := _specs(features[m], precision)) is not None}
    return {b.chip for big, b in specs.items() for small, s in specs.items()
            if big != small and dominates(b, s) and not dominates(s, b)
            and figures[(big, precision)][0] < figures[(small, precision)][0]}


def _never_close_pairs(shown, precision):
    figures, features = shown
    specs = {m: s for (m, p) in figures if p == precision and m in features
             and (s := _specs(features[m], precision)) is not None}
    contradicted = contradicted_chips(shown, precision)
    pairs = []
    for big, b in specs.items():
        for small, s in specs.items():
            if big == small or not dominates(b, s) or b.chip in contradicted:
                continue
            if b.compute < s.compute * MARGIN and b.bandwidth < s.bandwidth * MARGIN:
                continue
            measured_both = figures[(big, precision)][1] != "estimate" and figures[(small, precision)][1] != "estimate"
            if not measured_both:  # measurements disagree with each other as they will; estimates may not
                pairs.append((big, small))
    return pairs


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_every_never_close_same_chip_ordering_holds(shown, precision):
    pairs = _never_close_pairs(shown, precision)
    assert len(pairs) > 100  # the catalog's chip facts give many such pairs
    # GV100 (the two V100 figures); at fp32 also GA100, GA104 (the RTX 3080 Max-Q) and TU104.
    assert len(contradicted_chips(shown, precision)) <= 4
    wrong = [(big, small, _v(shown, big, precision), _v(shown, small, precision)) for big, small in pairs
             if _v(shown, big, precision) < _v(shown, small, precision)]
    assert not wrong


def test_gpus_mi308x_shows_the_corrected_bandwidth_with_its_source(replay_db):
    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app

    out = CliRunner().invoke(app, ["gpus", "MI308X", "--db", str(replay_db)])
    assert out.exit_code == 0, out.output
    flat = " ".join(out.output.split())
    assert "bandwidth_gb_s 5300 GB/s from spec-corrections: AMD Instinct MI300X data sheet" in flat
    assert "tensor_fp16_tflops 344 TFLOPS from spec-corrections" in flat


@pytest.mark.parametrize("command", ["gpus", "perf"])
def test_amd_instinct_is_the_name_shown(replay_db, command):
    from typer.testing import CliRunner

    from gpuvalue.flows.cli import app

    for query in ("MI300X", "Radeon Instinct MI300X"):
        out = CliRunner().invoke(app, [command, query, "--json", "--db", str(replay_db)])
        assert out.exit_code == 0, out.output
        assert '"AMD Instinct MI300X"' in out.output
        if query == "MI300X":
            assert "Radeon Instinct MI300X" not in out.output
