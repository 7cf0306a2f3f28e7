"""What a source hands the flow: the pages it fetched, then the records it parsed from them.

Plain data, shared by scrapers/ (which fill them) and the flow's loaders (which store them by kind).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gpuvalue.models.records import FetchedPage, GpuSpec, InferenceFigure, Listing


@dataclass
class SourceFetch:
    source: str
    pages: list[FetchedPage] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class ParsedSource:
    """One source's records. The typed lists serve the kinds the ranking was built on; ``records``
    holds any other kind's records (price index points, rental offers, harness figures)."""

    source: str
    kind: str
    specs: list[GpuSpec] = field(default_factory=list)
    listings: list[Listing] = field(default_factory=list)
    perf_tables: list[tuple[str, Any, list]] = field(default_factory=list)  # (key, precision, rows)
    inference: list[InferenceFigure] = field(default_factory=list)
    records: list[Any] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    def extend(self, other: ParsedSource) -> None:
        self.specs.extend(other.specs)
        self.listings.extend(other.listings)
        self.perf_tables.extend(other.perf_tables)
        self.inference.extend(other.inference)
        self.records.extend(other.records)
        self.warnings.extend(other.warnings)

    @property
    def count(self) -> int:
        return len(self.specs) + len(self.listings) + len(self.perf_tables) + len(self.inference) + len(self.records)
