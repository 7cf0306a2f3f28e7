"""Orderings a practitioner checks at sight, on the replay's shown figures (`gpuvalue perf`): the ones
the spec estimate used to get wrong, and every ordering of the same kind the catalog's chip facts
imply without a close call (models/perf/same_chip.py, docs/performance.md)."""

from __future__ import annotations

import duckdb
import pytest

from gpuvalue.models.perf.same_chip import _specs, clearly_dominates, dominates
from gpuvalue.warehouse.sql_files import dicts
from replay_figures import shown_figures


@pytest.fixture(scope="module")
def shown(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    try:
        features = {r["model"]: r for r in dicts(con, "catalog_features")}
    finally:
        con.close()
    figures = {key: (f["value"], f["source"], f["low"], f["high"]) for key, f in shown_figures(replay_db).items()}
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
    if precision == "fp16":  # the issue's case; the measured figure's weighting is combine.py's business
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


# Pairs where a card that clearly outclasses another (``same_chip.clearly_dominates``: same vendor line, same or
# newer generation, 15 % more compute whichever rate GeForce tensor math runs at, at least the bandwidth and
# memory) is shown below it, each with why an expert accepts it. Keyed by (precision, outclassing card prefix,
# outclassed card prefix).
ACCEPTED_ACROSS_CHIPS: dict[tuple[str, str, str], str] = {
    ("fp16", "RTX PRO 6000 Blackwell Server", "GeForce RTX 5090"):
        "both measured: the Server board's MLPerf figure (chained through the H100) outweighs GPU-Insights' "
        "direct one; measurements disagree as they will, and the combination weighs them",
}
# Two figures within this are level: the estimates are rounded to four places and spec databases round clocks.
LEVEL = 1.005


def _accepted(precision: str, big: str, small: str) -> bool:
    return any(p == precision and big.startswith(b) and small.startswith(s)
               for (p, b, s) in ACCEPTED_ACROSS_CHIPS)


@pytest.mark.parametrize("precision", ["fp16", "fp32"])
def test_no_card_is_shown_below_a_card_it_clearly_outclasses(shown, precision):
    """The held-out kind of ordering, over the whole catalog: desktop, workstation and datacenter boards of
    one vendor line, on any chips, estimated or measured (both measured too: a disagreement between two
    measurements is listed above with its reason)."""
    figures, features = shown
    specs = {m: s for (m, p) in figures if p == precision and m in features
             and (s := _specs(features[m], precision)) is not None and s.line is not None}
    pairs = [(big, small) for big, b in specs.items() for small, s in specs.items()
             if big != small and clearly_dominates(b, s)]
    assert len(pairs) > 10_000  # every generation of every line against the ones before it
    wrong = sorted((big, small, _v(shown, big, precision), _v(shown, small, precision)) for big, small in pairs
                   if _v(shown, big, precision) * LEVEL < _v(shown, small, precision)
                   and not _accepted(precision, big, small))
    assert not wrong
    # The exceptions still describe something: each accepted pair is still there
    used = {(p, b, s) for (p, b, s) in ACCEPTED_ACROSS_CHIPS if p == precision
            and any(big.startswith(b) and small.startswith(s) for big, small in pairs
                    if _v(shown, big, precision) * LEVEL < _v(shown, small, precision))}
    assert used == {k for k in ACCEPTED_ACROSS_CHIPS if k[0] == precision}


def test_the_orderings_behind_issue_42s_second_round(shown):
    """Figures an expert rejected at sight: GeForce RTX 50 boards below the Ada boards they outclass, an RTX
    3070 Ti 40 % above the measured RTX 3070, the 300 W V100 SXM2 below the 250 W PCIe board, an RTX 5090 D
    with the 5090's tensor rate."""
    v = lambda m: _v(shown, m)  # noqa: E731
    assert v("GeForce RTX 5080") > v("GeForce RTX 4080 SUPER")
    assert v("GeForce RTX 5070 Ti") > v("GeForce RTX 4070 Ti SUPER") > v("GeForce RTX 4070 Ti")
    assert v("GeForce RTX 5070") > v("GeForce RTX 4070")
    assert v("GeForce RTX 5060 Ti 16 GB") > v("GeForce RTX 4060 Ti 16 GB")
    assert v("GeForce RTX 3070") < v("GeForce RTX 3070 Ti") < 1.25 * v("GeForce RTX 3070")
    assert v("Tesla V100 SXM2 32 GB") > v("Tesla V100 PCIe 32 GB")
    assert v("Tesla V100 SXM2 16 GB") > v("Tesla V100 PCIe 16 GB")
    assert v("Tesla V100S PCIe 32 GB") >= v("Tesla V100 SXM2 32 GB")
    # the 5090 D's tensor throughput is held to 2375 of the 5090's 3352 AI TOPS (spec-corrections)
    assert v("GeForce RTX 5090 D V2") < v("GeForce RTX 5090 D") < v("GeForce RTX 5090")


def test_older_cdna_boards_stand_on_the_measured_cdna_3_level(shown):
    """The MI250X sat 44 % above the measured A100 SXM4 80 GB on the mean offset of every AMD family, two
    consumer RDNA cards from one harness among them; CDNA 1 and 2 now share CDNA 3's offset, fitted on
    MLPerf's MI300X and MI325X (arch_tables.CDNA1)."""
    v = lambda m: _v(shown, m)  # noqa: E731
    assert v("AMD Instinct MI250X") < v("AMD Instinct MI300X")
    assert v("AMD Instinct MI250X") < 1.3 * v("A100 SXM4 80 GB")
    assert v("AMD Instinct MI210") < v("A100 PCIe 80 GB")
    assert v("AMD Instinct MI100") < 1.25 * v("Tesla V100 SXM2 32 GB")
