"""The benchmark-harness sources as the combining needs them: each source's module (its anchors and
the date its data is as of), its figures out of parsed records, and its pages through any client.

Shared by the warehouse (which stores and combines what a run fetched) and the evaluation (which
reads the same recordings through the replay archive to run the held-out check offline).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import ModuleType

from gpuvalue.models.harness import HarnessFigure, RunMetadata
from gpuvalue.models.perf_combine import HarnessInput

# The harness sources (``docs/harnesses.md``), in the order they are read.
HARNESS_SOURCES = ("pytorch-gpu-benchmark", "gpu-insights", "cnn-benchmarks", "deep-learning-benchmark")


def source_module(name: str) -> ModuleType | None:
    """The module that declares source ``name``."""
    from gpuvalue.scrapers import registry

    for module in registry.source_modules():
        declared = getattr(module, "SOURCE", None)
        if declared is not None and declared.name == name:
            return module
    return None


def figures_from_records(name: str, records: Iterable[object]) -> list[HarnessFigure]:
    """A harness source's figures from its parsed records, joined with their runs' side files where
    the source publishes those apart (its module's ``figures_from_records``)."""
    records = list(records)
    module = source_module(name)
    joiner = getattr(module, "figures_from_records", None) if module is not None else None
    if joiner is not None and any(isinstance(r, RunMetadata) for r in records):
        return list(joiner(records))
    return [r for r in records if isinstance(r, HarnessFigure)]


def harness_inputs(figures: Mapping[str, list[HarnessFigure]]) -> list[HarnessInput]:
    """Each harness with its anchors (its module's ``ANCHORS``) and the date its data is of (its
    declared ``as_of``)."""
    out = []
    for name in sorted(figures):
        module = source_module(name)
        declared = getattr(module, "SOURCE", None)
        out.append(HarnessInput(name, figures[name], tuple(getattr(module, "ANCHORS", ()) or ()),
                                declared.as_of if declared is not None else None))
    return out


def fetch_harness_figures(client: object, names: Iterable[str] = HARNESS_SOURCES) -> dict[str, list[HarnessFigure]]:
    """Every named harness's figures, its pages fetched through ``client`` (the replay archive's
    transport for an offline, reproducible read)."""
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.source import FetchContext

    out = {}
    for name in names:
        src = registry.get(name)
        assert src.fetch is not None
        fetched = src.fetch(FetchContext(client=client, settings=None, replay=True))
        out[name] = figures_from_records(name, src.parse_pages(fetched.pages).records)
    return out
