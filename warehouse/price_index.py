"""Loading published price indexes and reading what they say about the pipeline's own prices.

The index goes to its own table (migration 009), never into the observations the own medians are
made of; views compare the two, and price_history shows it as the kind 'index'.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timezone

import duckdb
import pyarrow as pa

from gpuvalue.models.price_index import PriceIndexPoint
from gpuvalue.warehouse.record_tables import replace
from gpuvalue.warehouse.sql_files import dicts

# Alarm when the own sold median and the index's average differ by more than this, either way.
ALARM_MAX_REL_DIFF = 0.25
# ... and only with this many own sales behind the median: fewer make no price either (price_min_count).
ALARM_MIN_OWN = 3

# The incoming batch of an import, inserted by name into price_index_monthly (its model file's columns).
_SCHEMA = pa.schema([
    ("source", pa.string()), ("gpu_name", pa.string()), ("model", pa.string()), ("match_reason", pa.string()),
    ("month", pa.date32()), ("avg_sold_usd", pa.float64()), ("quantity_sold", pa.int32()),
    ("prices_averaged", pa.int32()), ("published", pa.date32()),
    ("loaded_at", pa.timestamp("us")), ("read_from", pa.string()),
])


def _naive_utc(value: datetime) -> datetime:
    return value.astimezone(timezone.utc).replace(tzinfo=None) if value.tzinfo is not None else value


def load_price_index(con: duckdb.DuckDBPyConnection, points: Iterable[PriceIndexPoint], loaded_at: datetime, *,
                     source: str | None = None) -> int:
    """Replace each source's rows with its points; returns the rows written.

    A re-import is the new truth for its source, as with performance figures, so rows a source no
    longer publishes go. Give ``source`` to replace a source that returned no points (and to refuse
    another source's points). Where one batch holds a name's month twice (a later article revising
    an earlier one), the newest article wins. The caller owns the transaction.
    """
    points = list(points)
    unmatched = sorted({p.source for p in points if p.match_reason is None})
    if unmatched:
        raise ValueError(f"points of {', '.join(unmatched)} not matched yet (the enrich stage matches them)")
    sources = {p.source for p in points}
    if source is not None:
        others = sorted(sources - {source})
        if others:
            raise ValueError(f"points of {', '.join(others)} passed as {source}'s")
        sources.add(source)
    keyed: dict[tuple[str, str, object], PriceIndexPoint] = {}
    for p in sorted(points, key=lambda p: p.published):
        keyed[(p.source, p.gpu_name, p.month)] = p
    stamp = _naive_utc(loaded_at)
    for name in sorted(sources):
        rows = [{**p.model_dump(exclude={"table", "match_title", "listed_beside"}), "loaded_at": stamp, "read_from": p.table}
                for p in keyed.values() if p.source == name]
        replace(con, PriceIndexPoint.stored_as, pa.Table.from_pylist(rows, schema=_SCHEMA) if rows else None, source=name)
    return len(keyed)


def price_index_alarms(con: duckdb.DuckDBPyConnection, *, max_rel_diff: float = ALARM_MAX_REL_DIFF,
                       min_own: int = ALARM_MIN_OWN) -> list[dict]:
    """Model-months where the index and the own sold median disagree by more than ``max_rel_diff``."""
    params = {"max_rel_diff": max_rel_diff, "min_own": min_own}
    return dicts(con, "quality_price_index_alarms", params)


def price_index_latest(con: duckdb.DuckDBPyConnection) -> dict[str, dict]:
    """Each model's newest index month (average, quantity, month), by model."""
    return {row["model"]: row for row in dicts(con, "price_index_latest_by_model")}
