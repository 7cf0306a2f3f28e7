"""Bulk, idempotent loads: records become an Arrow table, then one INSERT ... SELECT per table.

Each source loads in its own transaction, so a failing source leaves every other source's rows,
and yesterday's, untouched. Rerunning the same day changes nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from datetime import date, datetime, timezone

import duckdb
import pyarrow as pa

from gpuvalue.models import listing_row
from gpuvalue.models.records import GpuSpec, InferenceFigure, PerfFigure
from gpuvalue.warehouse import record_tables, sql_files
from gpuvalue.warehouse.ranking import materialize_day  # noqa: F401  (re-exported: the ranking's callers import it here)
from gpuvalue.warehouse.transactions import transaction  # noqa: F401  (re-exported: callers wrap their loads in it)


def _naive_utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value


def spec_hash(spec: GpuSpec) -> str:
    payload = spec.model_dump(mode="json", exclude={"fetched_at"})
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:32]


def load_gpu_specs(con: duckdb.DuckDBPyConnection, specs: Iterable[GpuSpec]) -> int:
    """Version one source's specs into gpu_specs (the caller wraps it in the source's transaction)."""
    seen: dict[tuple[str, str], GpuSpec] = {}
    for s in specs:
        key = (s.model, s.source)
        # A listing page can repeat a name; the first row (page order) wins, as the site shows it.
        seen.setdefault(key, s)
    if not seen:
        return 0
    rows = [
        {
            "model": s.model,
            "source": s.source,
            "fetched_at": _naive_utc(s.fetched_at),
            "spec_hash": spec_hash(s),
            "spec": s.model_dump_json(),
        }
        for s in seen.values()
    ]
    incoming_specs = pa.Table.from_pylist(
        rows,
        schema=pa.schema(
            [("model", pa.string()), ("source", pa.string()), ("fetched_at", pa.timestamp("us")),
             ("spec_hash", pa.string()), ("spec", pa.string())]
        ),
    )
    sql_files.run_on_batch(con, "incoming_specs", incoming_specs, "upsert_gpu_specs")
    return len(rows)


def current_specs(con: duckdb.DuckDBPyConnection) -> list[GpuSpec]:
    rows = sql_files.rows(con, "current_gpu_specs")
    return [GpuSpec.model_validate_json(spec) for _, _, _, spec in rows]


GPUS_COLUMNS = (
    "model", "vendor", "architecture", "generation", "chip", "segment", "release_date", "released",
    "memory_gb", "memory_type", "memory_bus_bits", "bandwidth_gb_s", "fp32_tflops", "fp16_tflops",
    "tensor_fp16_tflops", "tensor_cores", "l2_cache_mb", "tdp_w", "bus_interface", "form_factor",
    "slot_width", "launch_price_usd", "compute_capability", "framework_supported", "desktop_usable",
    "framework_support",
    "tpu_url", "provenance", "updated_at",
)


def replace_catalog(con: duckdb.DuckDBPyConnection, rows: Sequence[dict], conflicts: Sequence[dict]) -> int:
    """The catalog is derived from gpu_specs, so it is rebuilt whole rather than patched."""
    data = []
    for r in rows:
        d = {c: r.get(c) for c in GPUS_COLUMNS}
        d["provenance"] = json.dumps(d["provenance"] or {}, sort_keys=True, default=str)
        d["updated_at"] = _naive_utc(d["updated_at"]) if isinstance(d["updated_at"], datetime) else d["updated_at"]
        data.append(d)
    incoming_gpus = pa.Table.from_pylist(data) if data else None
    sql_files.run(con, "catalog_clear")
    if incoming_gpus is not None:
        sql_files.run_on_batch(con, "incoming_gpus", incoming_gpus, "catalog_insert_gpus")
    if conflicts:
        incoming_conflicts = pa.Table.from_pylist(
            [{**c, "kept_value": None if c.get("kept_value") is None else str(c["kept_value"]),
              "other_value": None if c.get("other_value") is None else str(c["other_value"]),
              "detected_at": _naive_utc(c.get("detected_at"))} for c in conflicts]
        )
        sql_files.run_on_batch(con, "incoming_conflicts", incoming_conflicts, "catalog_insert_conflicts")
    return len(data)


def load_listings(con: duckdb.DuckDBPyConnection, rows: Sequence[dict] | pa.Table) -> int:
    """Upsert enriched listing rows (``models/listing_row.py``: an Arrow batch, or dicts by column)
    and their daily snapshots; the rows loaded.

    The batch's columns are whatever its record has: a nullable one the table lacks is added first
    (``record_tables.fit_batch``). The table carries no key index: the load keeps one row per key
    itself, the newest observation in the batch, merged into the stored row by the rules of
    ``merge_listings.sql``.
    """
    table = rows if isinstance(rows, pa.Table) else pa.Table.from_pylist(list(rows), schema=listing_row.row_schema())
    if table.num_rows == 0:
        return 0
    table = record_tables.fit_batch(con, listing_row.TABLE, table)
    with sql_files.registered(con, "incoming_raw", table):
        duplicates = sql_files.scalar(con, "incoming_listings_duplicates")
        kind = "TABLE" if duplicates else "VIEW"
        if duplicates:  # a page can show a listing twice: keep its newest observation
            sql_files.run(con, "incoming_listings_newest")
        else:  # the common case: read the batch straight from Arrow, no copy
            con.execute("CREATE OR REPLACE TEMP VIEW incoming_listings AS SELECT * FROM incoming_raw")
        try:
            # Which listings the warehouse knew before this batch decides how their observations
            # are refreshed (see refresh_price_observations.sql).
            sql_files.run(con, "incoming_listings_touched")
            try:
                record_tables.merge(con, listing_row.TABLE, "merge_listings")
                sql_files.run(con, "upsert_listings")
                sql_files.run(con, "refresh_price_observations")
            finally:
                con.execute("DROP TABLE touched_listings")
        finally:
            con.execute(f"DROP {kind} incoming_listings")  # one of two constants
    return table.num_rows


def rebuild_price_observations(con: duckdb.DuckDBPyConnection) -> int:
    """Rebuild price_observations from listings and snapshots; returns the observations kept.

    Loads keep the table current by themselves; whatever changes listings another way (a
    re-match, a re-parse, rows written by hand) calls this before prices are materialized.
    """
    sql_files.run(con, "rebuild_price_observations")
    return sql_files.scalar(con, "price_observations_count")


def replace_perf(con: duckdb.DuckDBPyConnection, source: str, figures: Sequence[PerfFigure], loaded_at: datetime) -> int:
    """A source's figures replace its previous ones (its record's disposition: a re-import is the new truth
    for that source), one per (model, precision), stamped with the load time; its intervals go with them."""
    sql_files.run(con, "perf_interval_delete_source", {"source": source})
    rows = [
        {**f.model_dump(), "loaded_at": _naive_utc(loaded_at)}
        for f in {(f.model, f.precision): f for f in figures}.values()
    ]
    return record_tables.replace(con, PerfFigure.stored_as, pa.Table.from_pylist(rows) if rows else None, source=source)


# Tables a benchmark source's load replaces whole: each has <table>_delete_source.sql and
# <table>_insert_incoming.sql.
_PER_SOURCE_TABLES = ("perf_workload", "perf_scaling")


def _replace_source_rows(con: duckdb.DuckDBPyConnection, table: str, source: str, rows: Sequence[dict]) -> int:
    """A source's rows replace its previous ones: a re-import is the new truth for that source."""
    if table not in _PER_SOURCE_TABLES:
        raise ValueError(f"{table} is not replaced per source")
    sql_files.run(con, f"{table}_delete_source", {"source": source})
    if not rows:
        return 0
    incoming = pa.Table.from_pylist(list(rows))
    sql_files.run_on_batch(con, "incoming_source_rows", incoming, f"{table}_insert_incoming")
    return len(rows)


def replace_perf_workload(con: duckdb.DuckDBPyConnection, source: str, rows: Sequence[dict]) -> int:
    """A source's per-workload ratios replace its previous ones, like its figures."""
    return _replace_source_rows(con, "perf_workload", source, rows)


def replace_perf_inference(con: duckdb.DuckDBPyConnection, source: str, figures: Sequence[InferenceFigure],
                           loaded_at: datetime) -> int:
    """A source's inference figures replace its previous ones, like ``replace_perf``; they go to
    perf_inference only, never to perf, so they cannot reach the ranking."""
    others = sorted({f.source for f in figures} - {source})
    if others:
        raise ValueError(f"figures of {', '.join(others)} passed as {source}'s")
    keyed = {(f.model, f.workload, f.phase, f.gpu_count): f for f in figures}
    incoming_inference = pa.Table.from_pylist(
        [{**f.model_dump(), "loaded_at": _naive_utc(loaded_at)} for f in keyed.values()],
        schema=pa.schema([("model", pa.string()), ("source", pa.string()), ("workload", pa.string()),
                          ("phase", pa.string()), ("tokens_per_s", pa.float64()), ("gpu_count", pa.int32()),
                          ("as_of", pa.date32()), ("loaded_at", pa.timestamp("us"))]),
    ) if keyed else None
    return record_tables.replace(con, InferenceFigure.stored_as, incoming_inference, source=source)


def replace_scaling(con: duckdb.DuckDBPyConnection, source: str, rows: Sequence[dict]) -> int:
    return _replace_source_rows(con, "perf_scaling", source, rows)


def start_run(con, run_id: str, source: str, stage: str, as_of: date, replay: bool) -> None:
    sql_files.run(con, "run_start", {"run_id": run_id, "source": source, "stage": stage, "as_of": as_of,
                                     "replay": replay, "started_at": _naive_utc(datetime.now(timezone.utc))})


def set_run_matched(con, run_id: str, source: str, matched: int) -> None:
    sql_files.run(con, "run_set_matched", {"matched": matched, "run_id": run_id, "source": source})


def finish_run(con, run_id: str, source: str, status: str, rows: int | None = None, error: str | None = None) -> None:
    sql_files.run(con, "run_finish", {"finished_at": _naive_utc(datetime.now(timezone.utc)), "status": status,
                                      "rows": rows, "error": error, "run_id": run_id, "source": source})
