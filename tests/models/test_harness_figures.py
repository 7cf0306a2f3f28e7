"""HarnessFigure rules, run-metadata joins and device-name resolution (pure, no files)."""

from datetime import date

import pytest
from pydantic import ValidationError

from gpuvalue.models.harness import HarnessFigure, RunMetadata, device_key, join_run_metadata, resolve_device
from gpuvalue.models.records import MatchResult


def figure(**changes):
    base = dict(
        harness="h", device="GeForce_RTX_3090", model="GeForce RTX 3090", workload="resnet50", mode="train",
        precision="fp16", metric="ms_per_iter", value=40.0, framework="pytorch", run="Nvidia/GeForce_RTX_3090",
    )
    return HarnessFigure(**{**base, **changes})


@pytest.mark.parametrize(
    "changes",
    [
        {"value": 0.0},
        {"value": float("nan")},
        {"model": None},  # no model without a reason
        {"gpu_count": 0},
        {"batch_basis": "stated"},  # stated batch without a batch size
        {"precision": "bf16"},
        {"surprise": 1},
    ],
)
def test_inconsistent_figures_are_refused(changes):
    with pytest.raises(ValidationError):
        figure(**changes)


def test_throughput_of_a_timed_iteration_counts_every_gpus_batch():
    assert figure(value=50.0, batch_size=12, batch_basis="stated", gpu_count=2).throughput == pytest.approx(480.0)
    assert figure(metric="score", value=123.0).throughput == 123.0


def test_join_fills_batch_software_and_date_from_the_runs_side_files():
    fig = figure()
    meta = [
        RunMetadata(harness="h", run=fig.run, file="config.json", batch_size=12, gpu_count=1),
        RunMetadata(harness="h", run=fig.run, file="system_info.txt", cuda="11.1", cudnn="8004", date=date(2021, 2, 25)),
        RunMetadata(harness="h", run="elsewhere", file="config.json", batch_size=4),
    ]
    (joined,) = join_run_metadata([*meta, fig], default_batch=12)
    assert (joined.batch_size, joined.batch_basis, joined.cuda, joined.cudnn, joined.date) == (
        12, "stated", "11.1", "8004", date(2021, 2, 25)
    )


def test_join_uses_the_default_batch_flagged_or_leaves_it_unknown():
    (flagged,) = join_run_metadata([figure()], default_batch=12)
    assert (flagged.batch_size, flagged.batch_basis) == (12, "default")
    (unknown,) = join_run_metadata([figure()])
    assert (unknown.batch_size, unknown.batch_basis) == (None, "unknown")


def test_join_leaves_the_batch_unknown_when_side_files_disagree():
    fig = figure()
    meta = [
        RunMetadata(harness="h", run=fig.run, file="config.json", batch_size=12),
        RunMetadata(harness="h", run=fig.run, file="system_info.txt", batch_size=4),
    ]
    (joined,) = join_run_metadata([fig, *meta], default_batch=12)
    assert joined.batch_basis == "unknown" and "disagree" in joined.note


class FakeMatcher:
    def __init__(self, answers):
        self.answers = answers

    def match(self, title):
        model = self.answers.get(title)
        return MatchResult(model=model, reason="matched" if model else "no model named")


def test_resolution_order_aliases_then_rules_then_matcher():
    aliases = {device_key("Pascal Titan X"): ("TITAN X Pascal", None)}
    matcher = FakeMatcher({"RTX 4090": "GeForce RTX 4090", "GeForce RTX 3090": "GeForce RTX 3090", "Apple M4 GPU": "Tesla M4"})
    assert resolve_device("pascal  titan_x", aliases, matcher) == ("TITAN X Pascal", None)
    assert resolve_device("Apple M4 GPU", aliases, matcher) == (None, "integrated (Apple silicon)")
    assert resolve_device("TPU v5 chip", aliases, matcher) == (None, "not a GPU")
    assert resolve_device("NVIDIA vGPU (RTX 4090)", aliases, matcher) == ("GeForce RTX 4090", "virtualised (vGPU)")
    assert resolve_device("GeForce RTX 4070 Laptop GPU", aliases, matcher) == (None, "laptop part")
    assert resolve_device("GeForce_RTX_3090", aliases, matcher) == ("GeForce RTX 3090", None)
    assert resolve_device("Mystery 9000", aliases, matcher) == (None, "unresolved: no model named")
    assert resolve_device("Mystery 9000", aliases, None) == (None, "unresolved: no alias and no matcher")
