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

from gpuvalue.models.price_age import DEFAULT_COMPARABLE_DAYS
from gpuvalue.models.records import GpuSpec, InferenceFigure, PerfFigure
from gpuvalue.warehouse.sql_files import statements


def _naive_utc(value: datetime | None) -> datetime | None:
    if value is None:
        return None
    if value.tzinfo is not None:
        value = value.astimezone(timezone.utc).replace(tzinfo=None)
    return value


class _Transaction:
    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self.con = con

    def __enter__(self) -> duckdb.DuckDBPyConnection:
        self.con.execute("BEGIN TRANSACTION")
        return self.con

    def __exit__(self, exc_type, exc, tb) -> None:
        self.con.execute("ROLLBACK" if exc_type else "COMMIT")


def transaction(con: duckdb.DuckDBPyConnection) -> _Transaction:
    return _Transaction(con)


def _run_file(con: duckdb.DuckDBPyConnection, name: str, params: dict | None = None) -> None:
    for stmt in statements(name):
        if params:
            used = {k: v for k, v in params.items() if f"${k}" in stmt}
            con.execute(stmt, used)
        else:
            con.execute(stmt)


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
    con.register("incoming_specs", incoming_specs)
    try:
        _run_file(con, "upsert_gpu_specs")
    finally:
        con.unregister("incoming_specs")
    return len(rows)


def current_specs(con: duckdb.DuckDBPyConnection) -> list[GpuSpec]:
    rows = con.execute(statements("current_gpu_specs")[0]).fetchall()
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
    con.execute("DELETE FROM gpus")
    if incoming_gpus is not None:
        con.register("incoming_gpus", incoming_gpus)
        try:
            cols = ", ".join(GPUS_COLUMNS)
            con.execute(f"INSERT INTO gpus ({cols}) SELECT {cols} FROM incoming_gpus")  # column names are constants
        finally:
            con.unregister("incoming_gpus")
    con.execute("DELETE FROM spec_conflicts")
    if conflicts:
        incoming_conflicts = pa.Table.from_pylist(
            [{**c, "kept_value": None if c.get("kept_value") is None else str(c["kept_value"]),
              "other_value": None if c.get("other_value") is None else str(c["other_value"]),
              "detected_at": _naive_utc(c.get("detected_at"))} for c in conflicts]
        )
        con.register("incoming_conflicts", incoming_conflicts)
        try:
            con.execute("INSERT OR REPLACE INTO spec_conflicts BY NAME SELECT * FROM incoming_conflicts")
        finally:
            con.unregister("incoming_conflicts")
    return len(data)


LISTING_SCHEMA = pa.schema(
    [
        ("source", pa.string()), ("listing_id", pa.string()), ("title", pa.string()), ("subtitle", pa.string()),
        ("price", pa.float64()), ("shipping", pa.float64()), ("currency", pa.string()),
        ("total_usd", pa.float64()), ("fx_source", pa.string()), ("condition", pa.string()),
        ("condition_class", pa.string()), ("buying_option", pa.string()), ("bid_count", pa.int32()),
        ("quantity", pa.int32()), ("sold", pa.bool_()), ("sold_at", pa.timestamp("us")),
        ("first_seen", pa.timestamp("us")), ("last_seen", pa.timestamp("us")), ("status", pa.string()),
        ("url", pa.string()), ("marketplace", pa.string()), ("model", pa.string()), ("match_reason", pa.string()),
    ]
)


def listing_table(rows: Sequence[dict]) -> pa.Table:
    """Prepared rows as Arrow (measured faster than transposing to columns in Python first)."""
    return pa.Table.from_pylist(list(rows), schema=LISTING_SCHEMA)


def load_listings(con: duckdb.DuckDBPyConnection, rows: Sequence[dict] | pa.Table) -> int:
    """Upsert prepared listing rows (LISTING_SCHEMA columns) and their daily snapshots.

    The tables carry no key index (see migration 002): a MERGE on a hash join is several times
    faster for bulk loads, and one row per key is kept here: the newest observation in the batch.
    """
    table = rows if isinstance(rows, pa.Table) else listing_table(rows)
    if table.num_rows == 0:
        return 0
    con.register("incoming_raw", table)
    try:
        duplicates = con.execute(
            "SELECT count(*) - count(DISTINCT (source, listing_id)) FROM incoming_raw").fetchall()[0][0]
        kind = "TABLE" if duplicates else "VIEW"
        if duplicates:  # a page can show a listing twice: keep its newest observation
            con.execute(
                "CREATE OR REPLACE TEMP TABLE incoming_listings AS SELECT * FROM incoming_raw "
                "QUALIFY row_number() OVER (PARTITION BY source, listing_id ORDER BY last_seen DESC, sold DESC) = 1"
            )
        else:  # the common case: read the batch straight from Arrow, no copy
            con.execute("CREATE OR REPLACE TEMP VIEW incoming_listings AS SELECT * FROM incoming_raw")
        try:
            # Which listings the warehouse knew before this batch decides how their observations
            # are refreshed (see refresh_price_observations.sql).
            con.execute("CREATE OR REPLACE TEMP TABLE touched_listings AS SELECT source, listing_id "
                        "FROM incoming_listings SEMI JOIN listings USING (source, listing_id)")
            try:
                _run_file(con, "upsert_listings")
                _run_file(con, "refresh_price_observations")
            finally:
                con.execute("DROP TABLE touched_listings")
        finally:
            con.execute(f"DROP {kind} incoming_listings")  # one of two constants
    finally:
        con.unregister("incoming_raw")
    return table.num_rows


def rebuild_price_observations(con: duckdb.DuckDBPyConnection) -> int:
    """Rebuild price_observations from listings and snapshots; returns the observations kept.

    Loads keep the table current by themselves; whatever changes listings another way (a
    re-match, a re-parse, rows written by hand) calls this before prices are materialized.
    """
    _run_file(con, "rebuild_price_observations")
    return con.execute("SELECT count(*) FROM price_observations").fetchall()[0][0]


def replace_perf(con: duckdb.DuckDBPyConnection, source: str, figures: Sequence[PerfFigure], loaded_at: datetime) -> int:
    """A source's figures replace its previous ones: a re-import is the new truth for that source."""
    con.execute("DELETE FROM perf WHERE source = ?", [source])
    if not figures:
        return 0
    rows = [
        {**f.model_dump(), "loaded_at": _naive_utc(loaded_at)}
        for f in {(f.model, f.precision): f for f in figures}.values()
    ]
    incoming_perf = pa.Table.from_pylist(rows)
    con.register("incoming_perf", incoming_perf)
    try:
        con.execute(
            "INSERT INTO perf BY NAME SELECT model, precision, source, relative_perf, method, reference, measured, "
            "workloads, uncertainty, as_of, loaded_at FROM incoming_perf"
        )
    finally:
        con.unregister("incoming_perf")
    return len(rows)


# Tables a benchmark source's load replaces whole, with the columns it writes. Keys and names are
# constants: SQL below is built from them only.
_PER_SOURCE_TABLES = {
    "perf_workload": ("model", "precision", "source", "workload", "ratio"),
    "perf_scaling": ("model", "precision", "source", "num_gpu", "efficiency"),
}


def _replace_source_rows(con: duckdb.DuckDBPyConnection, table: str, source: str, rows: Sequence[dict]) -> int:
    """A source's rows replace its previous ones: a re-import is the new truth for that source."""
    columns = ", ".join(_PER_SOURCE_TABLES[table])
    con.execute(f"DELETE FROM {table} WHERE source = ?", [source])
    if not rows:
        return 0
    incoming = pa.Table.from_pylist(list(rows))
    con.register("incoming_source_rows", incoming)
    try:
        con.execute(f"INSERT OR REPLACE INTO {table} BY NAME SELECT {columns} FROM incoming_source_rows")
    finally:
        con.unregister("incoming_source_rows")
    return len(rows)


def replace_perf_workload(con: duckdb.DuckDBPyConnection, source: str, rows: Sequence[dict]) -> int:
    """A source's per-workload ratios replace its previous ones, like its figures."""
    return _replace_source_rows(con, "perf_workload", source, rows)


DELETE_PERF_INFERENCE = "DELETE FROM perf_inference WHERE source = ?"
INSERT_PERF_INFERENCE = (
    "INSERT INTO perf_inference BY NAME SELECT model, source, workload, phase, gpu_count, tokens_per_s, as_of, "
    "loaded_at FROM incoming_inference"
)


def replace_perf_inference(con: duckdb.DuckDBPyConnection, source: str, figures: Sequence[InferenceFigure],
                           loaded_at: datetime) -> int:
    """A source's inference figures replace its previous ones, like ``replace_perf``; they go to
    perf_inference only, never to perf, so they cannot reach the ranking."""
    others = sorted({f.source for f in figures} - {source})
    if others:
        raise ValueError(f"figures of {', '.join(others)} passed as {source}'s")
    con.execute(DELETE_PERF_INFERENCE, [source])
    keyed = {(f.model, f.workload, f.phase, f.gpu_count): f for f in figures}
    if not keyed:
        return 0
    incoming_inference = pa.Table.from_pylist(
        [{**f.model_dump(), "loaded_at": _naive_utc(loaded_at)} for f in keyed.values()],
        schema=pa.schema([("model", pa.string()), ("source", pa.string()), ("workload", pa.string()),
                          ("phase", pa.string()), ("tokens_per_s", pa.float64()), ("gpu_count", pa.int32()),
                          ("as_of", pa.date32()), ("loaded_at", pa.timestamp("us"))]),
    )
    con.register("incoming_inference", incoming_inference)
    try:
        con.execute(INSERT_PERF_INFERENCE)
    finally:
        con.unregister("incoming_inference")
    return len(keyed)


def replace_scaling(con: duckdb.DuckDBPyConnection, source: str, rows: Sequence[dict]) -> int:
    return _replace_source_rows(con, "perf_scaling", source, rows)


def materialize_day(
    con: duckdb.DuckDBPyConnection,
    as_of: date,
    *,
    precision: str,
    reference: str,
    window_days: int,
    min_count: int,
    comparable_days: int = DEFAULT_COMPARABLE_DAYS,
) -> int:
    """Prices then ranking for one date, in one transaction: readers see the old day or the new one.

    ``comparable_days``: prices within this many days of the day's newest price rank first ('recent')."""
    has_reference = con.execute(
        "SELECT count(*) FROM perf_best WHERE model = ? AND precision = ?", [reference, precision]).fetchall()[0][0]
    has_any = con.execute("SELECT count(*) FROM perf WHERE precision = ?", [precision]).fetchall()[0][0]
    if has_any and not has_reference:
        from gpuvalue.warehouse.db import WarehouseError

        raise WarehouseError(
            f"the reference GPU {reference!r} has no {precision} performance figure, so nothing can be "
            "expressed relative to it: set GPUVALUE_REFERENCE_GPU to a catalog model name that was "
            "measured or estimated (default 'GeForce RTX 3090')")
    params = {
        "as_of": as_of,
        "window_days": window_days,
        "min_count": min_count,
        "precision": precision,
        "reference": reference,
    }
    with transaction(con):
        _run_file(con, "prices_daily", params)
        _run_file(con, "ranking", {**params, "start": as_of, "end": as_of, "comparable_days": comparable_days})
    return con.execute("SELECT count(*) FROM ranking_daily WHERE as_of = ?", [as_of]).fetchall()[0][0]


def start_run(con, run_id: str, source: str, stage: str, as_of: date, replay: bool) -> None:
    con.execute(
        "INSERT OR REPLACE INTO runs (run_id, source, stage, as_of, replay, started_at, status) "
        "VALUES (?, ?, ?, ?, ?, ?, 'running')",
        [run_id, source, stage, as_of, replay, _naive_utc(datetime.now(timezone.utc))],
    )


def set_run_matched(con, run_id: str, source: str, matched: int) -> None:
    con.execute("UPDATE runs SET matched = ? WHERE run_id = ? AND source = ?", [matched, run_id, source])


def finish_run(con, run_id: str, source: str, status: str, rows: int | None = None, error: str | None = None) -> None:
    con.execute(
        "UPDATE runs SET finished_at = ?, status = ?, rows = ?, error = ? WHERE run_id = ? AND source = ?",
        [_naive_utc(datetime.now(timezone.utc)), status, rows, error, run_id, source],
    )
