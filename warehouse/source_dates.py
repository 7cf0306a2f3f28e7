"""Where each number came from and how old its data is: the sources of a warehouse, for the
exports, the feed and the report alike (each reads it; none reads another's module)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from typing import Any

import duckdb

from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.export_files import ExportError
from gpuvalue.warehouse.queries import source_catalog

BASE_ATTRIBUTION: tuple[str, ...] = (
    "GPU specifications: TechPowerUp GPU Database (techpowerup.com)",
    "Launch prices and specifications: Wikipedia contributors, CC BY-SA 4.0",
    "Used-market prices: eBay listings (eBay Inc. and its sellers)",
    "Training benchmarks: Lambda (lambdalabs.com GPU benchmarks)",
)

def json_value(value: Any) -> Any:
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise ExportError(f"refusing to export non-finite number {value!r}")
    return value


# What the warehouse itself is the source of, by name prefix -> (kind, attribution, licence). The
# fetched sources describe themselves (their module's declaration, written by every run into the
# `sources` table); both are looked up by longest matching prefix.
OWN_SOURCES: dict[str, tuple[str, str, str]] = {
    "import:": ("listings", "Imported listings supplied by the operator", "as supplied by the operator"),
    "local": ("perf", "Training benchmarks measured locally with gpuvalue", "MIT"),
    "estimate": ("perf", "Performance estimated from specifications by gpuvalue", "MIT"),
    # A card several harnesses measured ranks by their combination (models/perf/combine.py, COMBINED):
    # gpuvalue's arithmetic on the figures of the benchmark sources listed beside it.
    "combined": ("perf", "Training benchmarks: several measured sources' figures combined by gpuvalue",
                 "derived from the benchmark sources listed; their terms apply"),
    # Every card's shown figure when measured (models/perf/weighted.py, WEIGHTED): gpuvalue's weighting of
    # the benchmark sources' figures and its own estimate.
    "weighted": ("perf", "Training performance: the benchmark sources' figures and gpuvalue's estimate, weighted by "
                 "gpuvalue", "derived from the benchmark sources listed; their terms apply"),
    "fx": ("fx", "Exchange rates", "as published by the rate provider"),
}


# gpuvalue's own figures computed from other sources' data: nothing is fetched for them.
COMPUTED = frozenset({"estimate", "combined", "weighted"})


def describe_source(name: str, catalog: Mapping[str, tuple[str, str, str]] | None = None) -> tuple[str, str, str]:
    """(kind, attribution, licence) for a source name; unknown sources are still named."""
    known = {**(catalog or {}), **OWN_SOURCES}
    matches = [prefix for prefix in known if name.lower().startswith(prefix)]
    if not matches:
        return ("other", f"Data source: {name}", "unknown")
    kind, attribution, licence = known[max(matches, key=len)]
    if name.lower().startswith("import:"):
        attribution = f"Imported listings: {name.split(':', 1)[1] or 'unnamed'}"
    return kind, attribution, licence


def normalize_source(source: dict[str, Any], catalog: Mapping[str, tuple[str, str, str]] | None = None) -> dict[str, Any]:
    """Fill kind/attribution/licence from the catalog so callers may pass just a name and status."""
    if not source.get("name"):
        raise ExportError(f"source without a name: {source!r}")
    kind, attribution, licence = describe_source(str(source["name"]), catalog)
    result = {
        "name": str(source["name"]),
        "kind": source.get("kind") or kind,
        "status": source.get("status") or "unknown",
        "fetched_at": json_value(source.get("fetched_at")),
        "as_of": json_value(source.get("as_of")),
        "attribution": source.get("attribution") or attribution,
        "licence": source.get("licence") or licence,
    }
    for key in ("fetched_at", "as_of"):
        if result[key] is not None and not isinstance(result[key], str):
            result[key] = str(result[key])
    return result


def attribution_lines(sources: Iterable[dict[str, Any]]) -> list[str]:
    """The base credits plus every named source's that gave data, without duplicates, in a stable order
    (a source a replay did not hold, or that never loaded anything, is not credited)."""
    lines = list(BASE_ATTRIBUTION)
    for source in sources:
        if source.get("status") != "ok" and source.get("as_of") is None and source.get("fetched_at") is None:
            continue  # gave no data: not recorded in a replay, or never loaded anything
        line = source.get("attribution")
        if line and line not in lines:
            lines.append(line)
    return lines


def _as_datetime(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    return None


def sources_from_db(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Each source's latest run status, last fetch, and the date of the data it gave.

    ``as_of`` is always the date of the data itself, never the day a run was made for: the newest
    day a listing was seen or sold, a spec snapshot's date, a benchmark table's content date, a
    price index's newest month. A run for 2026-11-30 that read a page recorded in 2024 says 2024.
    ``fetched_at`` is the last successful live run; a replay fetches nothing, so there it is the
    recorded capture time the data carries (None where the data carries none).
    """
    merged: dict[str, dict[str, Any]] = {}
    catalog = source_catalog(con)

    def entry(name: str) -> dict[str, Any]:
        return merged.setdefault(name, {"name": name, "status": None, "fetched_at": None, "as_of": None})

    def newer(current: Any, candidate: Any) -> Any:
        if candidate is None:
            return current
        if current is None:
            return candidate
        return max(current, candidate, key=lambda value: _as_datetime(value) or datetime.min)

    for name, status, last_live_ok in sql_files.rows(con, "source_latest_runs"):
        item = entry(name)
        item["status"] = status
        item["fetched_at"] = newer(item["fetched_at"], last_live_ok)

    # (source, when its data was fetched, the date the data is of), one statement per table
    for query in sql_files.statements("source_data_freshness"):
        for name, fetched_at, day in con.execute(query).fetchall():
            item = entry(name)
            item["fetched_at"] = newer(item["fetched_at"], fetched_at)
            item["as_of"] = newer(item["as_of"], day)

    # Benchmark figures are stored under their tables' names (lambda-pytorch-2024 for the source
    # lambda); a source is as new as its newest table, and a table was fetched when its source was.
    for name, loaded_at, day, inference_only in sql_files.rows(con, "source_benchmark_tables"):
        owner = _registered_parent(name, catalog)
        ran = owner is not None and owner != name and owner in merged  # the source that fetched the table
        if ran and owner is not None:
            merged[owner]["as_of"] = newer(merged[owner]["as_of"], day)
        if inference_only:
            continue  # inference tables are listed under their source only
        item = entry(name)
        # A registered source's fetch time is its last live run's (above; none after a replay, which
        # fetches nothing): the table's load time is not a fetch, nor is the time gpuvalue computed its
        # own figures from others (estimate, combined). A local measurement was taken when it was loaded.
        fetched = merged[owner]["fetched_at"] if ran and owner is not None else (None if owner == name or name in COMPUTED else loaded_at)
        item["fetched_at"] = newer(item["fetched_at"], fetched)
        item["as_of"] = newer(item["as_of"], day)

    result = []
    for name in sorted(merged):
        item = merged[name]
        if item["status"] is None:
            item["status"] = "unknown"
        if isinstance(item["as_of"], datetime):
            item["as_of"] = item["as_of"].date()
        result.append(normalize_source(item, catalog))
    return result


def _registered_parent(name: str, catalog: Mapping[str, Any]) -> str | None:
    """The registered source a stored name belongs to: itself, or the longest ``<source>-`` prefix."""
    if name in catalog:
        return name
    owners = [source for source in catalog if name.startswith(f"{source}-")]
    return max(owners, key=len) if owners else None


def ranking_is_replay(con: duckdb.DuckDBPyConnection, as_of: date | None = None) -> bool:
    """Whether the newest run for the ranking day (default: the latest ranked day) was a replay of
    recorded pages rather than a live fetch."""
    day = as_of or sql_files.scalar(con, "ranking_latest_day")
    if day is None:
        return False
    return bool(sql_files.scalar(con, "ranking_day_replay", [day]))


def replayed_days(con: duckdb.DuckDBPyConnection) -> set[date]:
    """Every ranking day whose newest run was a replay (``ranking_is_replay`` of each, at once)."""
    return {day for (day,) in sql_files.rows(con, "ranking_replay_days")}


