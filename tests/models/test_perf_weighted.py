"""Precision-weighted figures (docs/performance-log.md, "Precision-weighted figures, and estimates on the
reference's scale"): pure rules on made-up evidence."""

import math
import random

import pytest

from gpuvalue.models.perf.weighted import (
    MIN_SIGMA,
    OUTLIER_Z,
    Evidence,
    adjacent_within_interval,
    close_runs_words,
    describe,
    interval,
    overlap,
    perf_with_spread,
    pair_variances,
    perf_range_words,
    reliabilities,
    weighted_figure,
)

REF = "GeForce RTX 3090"


def noisy_cards(sigmas: dict[str, float], n: int = 40, seed: int = 7) -> dict[str, list[Evidence]]:
    """``n`` cards, each measured by every source with independent log-normal errors of the given sizes."""
    rng = random.Random(seed)
    cards = {}
    for i in range(n):
        truth = math.exp(rng.uniform(-1.5, 1.0))
        cards[f"card {i}"] = [Evidence(source=s, value=truth * math.exp(rng.gauss(0, sd))) for s, sd in sigmas.items()]
    return cards


def test_reliabilities_recover_each_sources_own_error_from_pairwise_disagreement():
    truth = {"lambda": 0.06, "harness": 0.20, "estimate": 0.11}
    found = reliabilities(noisy_cards(truth, n=3000), REF)
    for source, sd in truth.items():
        assert found[source] == pytest.approx(sd, rel=0.3), (source, found)
    # The noisiest source is the least trusted, the quietest the most.
    assert found["harness"] > found["estimate"] > found["lambda"]


def test_a_constant_scale_between_two_sources_is_not_disagreement():
    cards = noisy_cards({"a": 0.05, "b": 0.05, "c": 0.05}, n=60)
    shifted = {m: [Evidence(e.source, e.value * (0.8 if e.source == "b" else 1.0)) for e in ev] for m, ev in cards.items()}
    assert reliabilities(shifted, REF)["b"] == pytest.approx(reliabilities(cards, REF)["b"], rel=0.05)


def test_the_reference_and_pairs_sharing_too_few_cards_are_left_out():
    cards = {REF: [Evidence("a", 1.0), Evidence("b", 1.0)],
             "x": [Evidence("a", 0.5), Evidence("b", 0.6)], "y": [Evidence("a", 0.4), Evidence("b", 0.3)]}
    assert pair_variances(cards, REF) == {}
    # No pair: every source gets the floor (nothing to read a deviation from), never a crash.
    assert reliabilities(cards, REF) == {"a": MIN_SIGMA, "b": MIN_SIGMA}


def test_a_source_seen_on_few_cards_is_trusted_no_better_than_the_median_source():
    cards = noisy_cards({"lambda": 0.05, "harness": 0.25, "estimate": 0.12}, n=60)
    rng = random.Random(3)
    for i in range(4):  # a harness on four cards that happens to agree closely with the estimate
        est = next(e.value for e in cards[f"card {i}"] if e.source == "estimate")
        cards[f"card {i}"].append(Evidence("tiny", est * math.exp(rng.gauss(0, 0.01))))
    found = reliabilities(cards, REF)
    assert found["tiny"] >= sorted(v for s, v in found.items() if s != "tiny")[1] - 1e-9  # the median of three


def test_the_figure_is_the_inverse_variance_weighted_mean_in_log_space():
    sigmas = {"lambda": 0.05, "estimate": 0.10}
    fig = weighted_figure([Evidence("lambda", 1.2), Evidence("estimate", 1.0)], sigmas)
    w_l, w_e = 1 / 0.05**2, 1 / 0.10**2
    expected = math.exp((w_l * math.log(1.2) + w_e * math.log(1.0)) / (w_l + w_e))
    assert fig.value == pytest.approx(expected)
    assert dict((e.source, share) for e, share in fig.shares)["lambda"] == pytest.approx(0.8)
    assert fig.low < fig.value < fig.high


def test_one_source_gives_its_own_interval_and_more_evidence_narrows_it():
    sigmas = {"a": 0.1, "b": 0.1, "c": 0.1}
    one = weighted_figure([Evidence("a", 0.5)], sigmas)
    assert one.value == pytest.approx(0.5)
    assert (one.low, one.high) == pytest.approx(interval(0.5, 0.1))
    three = weighted_figure([Evidence("a", 0.5), Evidence("b", 0.5), Evidence("c", 0.5)], sigmas)
    assert three.high / three.low < one.high / one.low


def test_a_figure_resting_on_one_workload_counts_less_and_widens_the_interval():
    sigmas = {"a": 0.1}
    many = weighted_figure([Evidence("a", 0.5, workloads=10)], sigmas)
    single = weighted_figure([Evidence("a", 0.5, workloads=1)], sigmas)
    assert single.high / single.low > many.high / many.low
    mixed = weighted_figure([Evidence("a", 0.5, workloads=10), Evidence("b", 0.4, workloads=1)], {"a": 0.1, "b": 0.1})
    assert dict((e.source, s) for e, s in mixed.shares)["b"] == pytest.approx(1 / 3)


def test_a_figure_far_outside_its_sources_usual_agreement_is_down_weighted_and_named():
    sigmas = {"lambda": 0.05, "gi": 0.08, "lamikr": 0.10, "estimate": 0.08}
    evidence = [Evidence("lambda", 0.40), Evidence("gi", 0.42), Evidence("estimate", 0.39), Evidence("lamikr", 0.80)]
    fig = weighted_figure(evidence, sigmas)
    assert [e.source for e, _ in fig.outliers] == ["lamikr"]
    assert abs(fig.outliers[0][1]) > OUTLIER_Z
    plain = math.exp(sum(math.log(e.value) / sigmas[e.source] ** 2 for e in evidence)
                     / sum(1 / sigmas[e.source] ** 2 for e in evidence))
    assert fig.value < plain < 0.80  # pulled less far than trusting it fully
    assert "down-weighted" in describe(fig) and "lamikr 0.800" in describe(fig)


def test_evidence_that_disagrees_more_than_its_variances_say_widens_the_interval():
    sigmas = {"a": 0.05, "b": 0.05}
    agree = weighted_figure([Evidence("a", 1.0), Evidence("b", 1.02)], sigmas)
    apart = weighted_figure([Evidence("a", 1.0), Evidence("b", 1.3)], sigmas)
    assert apart.high / apart.low > agree.high / agree.low


def test_a_low_confidence_estimate_weighs_less():
    sigmas = {"lambda": 0.1, "estimate": 0.1}
    plain = weighted_figure([Evidence("lambda", 1.0), Evidence("estimate", 0.8)], sigmas)
    wide = weighted_figure([Evidence("lambda", 1.0), Evidence("estimate", 0.8, factor=2.5)], sigmas)
    assert wide.value > plain.value


def test_overlap_and_adjacent_picks_within_each_others_interval():
    assert overlap(1.0, 2.0, 1.5, 3.0) and overlap(1.5, 3.0, 1.0, 2.0)
    assert overlap(1.0, 2.0, 2.0, 3.0)
    assert not overlap(1.0, 2.0, 2.1, 3.0)
    rows = [
        {"rank": 1, "price_usd": 500.0, "perf_low": 0.9, "perf_high": 1.1},
        {"rank": 2, "price_usd": 520.0, "perf_low": 0.85, "perf_high": 1.05},
        {"rank": 3, "price_usd": 1000.0, "perf_low": 0.8, "perf_high": 0.9},
        {"rank": 4, "price_usd": 900.0, "perf_low": None, "perf_high": None},
    ]
    assert [(a["rank"], b["rank"]) for a, b in adjacent_within_interval(rows)] == [(1, 2)]
    assert perf_range_words(rows[0]) == "0.90-1.10" and perf_range_words(rows[3]) == "-"
    assert perf_with_spread({"relative_perf": 0.5, "perf_high": 0.6}) == "0.500 ±20%"
    assert perf_with_spread({"relative_perf": 0.5, "perf_high": None}) == "0.500"
    # A figure bounded from above by a sibling sits at its interval's top: the wider, lower side is shown.
    assert perf_with_spread({"relative_perf": 0.359, "perf_high": 0.3595, "perf_low": 0.205}) == "0.359 ±43%"
    r = [{"rank": i} for i in range(1, 8)]
    assert close_runs_words([(r[0], r[1]), (r[1], r[2]), (r[2], r[3]), (r[5], r[6])]) == \
        "#1 to #4 (each with the next), #6 and #7"


def test_a_harness_that_disagrees_across_cards_carries_little_weight_where_it_is_the_outlier():
    # The RX 7900 XTX case: one ROCm harness at 1.384 against a held-out estimate near 0.85 and a
    # measured source near 0.95. The harness's own spread over the cards it shares with the others
    # (read from its disagreements, not from this card) sets its weight, so it no longer carries half.
    sigmas = reliabilities(noisy_cards({"lambda": 0.07, "estimate": 0.10, "pytorch-gpu-benchmark": 0.30},
                                       n=400, seed=11), REF)
    assert sigmas["pytorch-gpu-benchmark"] > 2 * sigmas["lambda"]
    harness = Evidence(source="pytorch-gpu-benchmark", value=1.384, workloads=20, rocm=True)
    evidence = [harness, Evidence(source="estimate", value=0.849), Evidence(source="lambda", value=0.95, workloads=8)]
    fig = weighted_figure(evidence, sigmas)
    share = dict((e.source, s) for e, s in fig.shares)
    assert share["pytorch-gpu-benchmark"] < 0.1
    assert 0.85 < fig.value < 0.95  # near the agreeing evidence
    # Against the estimate alone it still weighs less than the estimate, and a wilder claim is named.
    alone = weighted_figure(evidence[:2], sigmas)
    assert dict((e.source, s) for e, s in alone.shares)["pytorch-gpu-benchmark"] < 0.5
    wild = weighted_figure([Evidence(source="pytorch-gpu-benchmark", value=4.0, workloads=20), *evidence[1:]], sigmas)
    assert [e.source for e, _ in wild.outliers] == ["pytorch-gpu-benchmark"]
    assert "down-weighted" in describe(wild)


def test_the_spread_is_the_intervals_wider_side_and_none_without_one():
    from gpuvalue.models.perf.weighted import spread

    assert spread({"relative_perf": 0.5, "perf_low": 0.4, "perf_high": 0.55}) == pytest.approx(0.2)
    assert spread({"relative_perf": 0.5, "perf_low": 0.45, "perf_high": 0.6}) == pytest.approx(0.2)
    assert spread({"relative_perf": 0.5}) is None
