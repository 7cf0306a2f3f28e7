"""The benchmark-harness sources as the combining needs them: each source's declared anchors and the
date its data is as of, its figures out of parsed records, and its pages through any client.

Shared by the warehouse (which stores and combines what a run fetched) and the evaluation (which
reads the same recordings through the replay archive to run the held-out check offline).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from gpuvalue.models.harness import HarnessFigure, RunMetadata
from gpuvalue.models.perf.combine import HarnessInput
from gpuvalue.scrapers.source import Harness, Source


def _declared(name: str) -> Source | None:
    """The registered source ``name``, or None for a name a warehouse still holds but no module declares
    any more (its stored figures are combined without anchors or a date rather than failing the run)."""
    from gpuvalue.scrapers import registry

    return registry.all_sources().get(name)


def _harness(name: str) -> Harness:
    """What source ``name`` declares as a harness; a bare one (no anchors, no side files) where it is
    no longer declared, or declared without it."""
    declared = _declared(name)
    return declared.harness if declared is not None and declared.harness is not None else Harness()


def figures_from_records(name: str, records: Iterable[object]) -> list[HarnessFigure]:
    """A harness source's figures from its parsed records, joined with their runs' side files where
    the source publishes those apart (its declared ``Harness.join_runs``)."""
    records = list(records)
    join_runs = _harness(name).join_runs
    if join_runs is not None and any(isinstance(r, RunMetadata) for r in records):
        return list(join_runs(records))
    return [r for r in records if isinstance(r, HarnessFigure)]


def harness_inputs(figures: Mapping[str, list[HarnessFigure]]) -> list[HarnessInput]:
    """Each harness with its declared anchors and the date its data is of (its declared ``as_of``)."""
    out = []
    for name in sorted(figures):
        declared = _declared(name)
        out.append(HarnessInput(name, figures[name], tuple(_harness(name).anchors),
                                declared.as_of if declared is not None else None, _harness(name).bridge,
                                _harness(name).third_check))
    return out


def harness_sources() -> tuple[str, ...]:
    """The benchmark sources that declare themselves harnesses (``Source.harness``, see
    ``docs/harnesses.md``): a new harness module is one of them without an edit here."""
    from gpuvalue.scrapers import registry

    return tuple(name for name, src in registry.all_sources().items() if src.harness is not None)


def fetch_harness_figures(client: object, names: Iterable[str] | None = None) -> dict[str, list[HarnessFigure]]:
    """Every named harness's figures as published (every harness's by default; the enrich stage resolves
    their devices, flows/enrich.py), its pages fetched through
    ``client`` (the replay archive's transport for an offline, reproducible read); a harness whose
    extract ships with gpuvalue (MLPerf Training) is read from it."""
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.source import FetchContext

    out = {}
    for name in harness_sources() if names is None else names:
        src = registry.get(name)
        if src.fetch is None:  # its extract ships with gpuvalue: nothing to fetch
            out[name] = figures_from_records(name, src.parse_pages(None).records)
            continue
        fetched = src.fetch(FetchContext(client=client, settings=None, replay=True))
        out[name] = figures_from_records(name, src.parse_pages(fetched.pages).records)
    return out
