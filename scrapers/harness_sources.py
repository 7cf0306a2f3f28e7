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


def harness_sources() -> tuple[str, ...]:
    """The benchmark sources that are harnesses (``docs/harnesses.md``): those whose module declares
    ``ANCHORS``, the cards its ratios may anchor on where a comparison has no reference card. A new
    harness module is one of them without an edit here."""
    from gpuvalue.scrapers import registry

    return tuple(name for name in registry.names(kind="benchmark") if hasattr(source_module(name), "ANCHORS"))


def fetch_harness_figures(client: object, names: Iterable[str] | None = None) -> dict[str, list[HarnessFigure]]:
    """Every named harness's figures (every harness's by default), its pages fetched through
    ``client`` (the replay archive's transport for an offline, reproducible read)."""
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.source import FetchContext

    out = {}
    for name in harness_sources() if names is None else names:
        src = registry.get(name)
        assert src.fetch is not None
        fetched = src.fetch(FetchContext(client=client, settings=None, replay=True))
        out[name] = figures_from_records(name, src.parse_pages(fetched.pages).records)
    return out
