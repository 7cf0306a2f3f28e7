"""Files users download: the materialized ranking as CSV, JSON (with its schema) and Parquet.

Every file is replaced atomically, because readers (feed pollers, dashboards, a cron job
copying to a web server) may open it at any moment and must never see half a file.
Every export names its sources and their licences: the ranking is built from other
people's data, and CC BY-SA material (Wikipedia launch prices) requires attribution.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import tempfile
from collections.abc import Callable, Iterable, Mapping
from datetime import date, datetime, timezone
from pathlib import Path
from typing import IO, Any

import duckdb

from gpuvalue.warehouse.queries import source_catalog

SCHEMA_VERSION = "1.1"
SCHEMA_PATH = Path(__file__).parent / "schemas" / "ranking.schema.json"

RANKING_CSV_COLUMNS: tuple[str, ...] = (
    "rank",
    "model",
    "vendor",
    "architecture",
    "segment",
    "memory_gb",
    "bandwidth_gb_s",
    "price_usd",
    "price_kind",
    "price_n",
    "price_q1",
    "price_q3",
    "price_as_of",
    "stale",
    "relative_perf",
    "perf_source",
    "perf_per_dollar",
    "framework_supported",
    "desktop_usable",
    "reference_gpu",
    "as_of",
    # Since schema 1.1: the support level, the fan kit, and where and how old the price is.
    "framework_support",
    "passive",
    "price_source",
    "price_age_days",
    "price_tier",
)

# JSON rows carry what the CSV has plus the fields a program needs to judge a number.
RANKING_JSON_FIELDS: tuple[str, ...] = RANKING_CSV_COLUMNS + ("perf_method", "perf_precision", "tdp_w")

# Credited in every export: the ranking is always built from these kinds of data.
BASE_ATTRIBUTION: tuple[str, ...] = (
    "GPU specifications: TechPowerUp GPU Database (techpowerup.com)",
    "Launch prices and specifications: Wikipedia contributors, CC BY-SA 4.0",
    "Used-market prices: eBay listings (eBay Inc. and its sellers)",
    "Training benchmarks: Lambda (lambdalabs.com GPU benchmarks)",
)


class ExportError(RuntimeError):
    """An export could not be written where asked, or there is nothing valid to write."""


# --- where and how files are written -------------------------------------------------


def validate_export_path(path: str | os.PathLike[str]) -> Path:
    """Fail early with a readable message instead of an OSError from deep inside a writer."""
    target = Path(path)
    if str(target) == "" or "\x00" in str(target):
        raise ExportError(f"invalid export path {str(target)!r}")
    if target.is_dir():
        raise ExportError(f"export path {target} is a directory; give a file name")
    parent = target.parent
    if not parent.exists():
        raise ExportError(f"cannot export to {target}: directory {parent} does not exist")
    if not parent.is_dir():
        raise ExportError(f"cannot export to {target}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ExportError(f"cannot export to {target}: directory {parent} is not writable")
    if _is_database_file(target):
        raise ExportError(f"refusing to export over {target}: it is a DuckDB database (or its journal or lock)")
    return target


def _is_database_file(target: Path) -> bool:
    """An export must never replace the warehouse it reads, whatever the file is called."""
    if target.name.endswith((".wal", ".lock")) and target.exists():
        return True
    try:
        with open(target, "rb") as fh:
            head = fh.read(12)
    except OSError:
        return False
    return head[8:12] == b"DUCK"


def prepare_export_dir(out_dir: str | os.PathLike[str]) -> Path:
    """An output directory is created on demand; anything else in its place is an error."""
    directory = Path(out_dir)
    if directory.exists() and not directory.is_dir():
        raise ExportError(f"cannot export to {directory}: it exists and is not a directory")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ExportError(f"cannot create export directory {directory}: {exc.strerror or exc}") from exc
    if not os.access(directory, os.W_OK | os.X_OK):
        raise ExportError(f"cannot export to {directory}: directory is not writable")
    return directory


def write_atomic(path: str | os.PathLike[str], write: Callable[[IO[bytes]], None]) -> Path:
    """Write through ``write`` into a temp file beside ``path``, fsync, then rename over it.

    The temp file lives in the same directory so that ``os.replace`` is a rename on one
    filesystem (atomic), not a copy. If ``write`` raises, the old file stays untouched.
    """
    target = validate_export_path(path)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600 files; exports are meant to be read by others.
        os.chmod(tmp_name, 0o644)
        os.replace(tmp_name, target)
    except BaseException:
        try:
            os.unlink(tmp_name)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(target.parent)
    return target


def write_text_atomic(path: str | os.PathLike[str], text: str) -> Path:
    return write_atomic(path, lambda handle: handle.write(text.encode("utf-8")))


def _fsync_directory(directory: Path) -> None:
    """Persist the rename itself; not every platform can open a directory, which is fine."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# --- reading the materialized ranking -------------------------------------------------


def resolve_as_of(con: duckdb.DuckDBPyConnection, as_of: date | None) -> date:
    """The latest ranked day by default; a day without a ranking is an error, not an empty file."""
    if as_of is None:
        latest = con.execute("SELECT max(as_of) FROM ranking_daily").fetchall()[0][0]
        if latest is None:
            raise ExportError("nothing to export: ranking_daily is empty")
        return latest
    found = con.execute("SELECT count(*) FROM ranking_daily WHERE as_of = ?", [as_of]).fetchall()[0][0]
    if not found:
        raise ExportError(f"nothing to export: no ranking for {as_of.isoformat()}")
    return as_of


def ranking_rows(con: duckdb.DuckDBPyConnection, as_of: date | None = None) -> list[dict[str, Any]]:
    """All ``ranking_daily`` columns of one day, best rank first."""
    day = resolve_as_of(con, as_of)
    cursor = con.execute("SELECT * FROM ranking_daily WHERE as_of = ? ORDER BY rank, model", [day])
    names = [column[0] for column in cursor.description]
    return [dict(zip(names, values)) for values in cursor.fetchall()]


def ranking_arrow_table(con: duckdb.DuckDBPyConnection, as_of: date | None = None):
    """The day's ranking in CSV column order (then the extra JSON fields), as an Arrow table."""
    day = resolve_as_of(con, as_of)
    columns = ", ".join(RANKING_JSON_FIELDS)
    relation = con.sql(f"SELECT {columns} FROM ranking_daily WHERE as_of = ? ORDER BY rank, model", params=[day])
    # DuckDB 2 names it to_arrow_table; older releases only have fetch_arrow_table.
    to_table = getattr(relation, "to_arrow_table", None) or relation.fetch_arrow_table
    return to_table()


# --- CSV ---------------------------------------------------------------------------------


def csv_cell(value: Any) -> str:
    """Text a spreadsheet and ``csv`` readers both take back: ISO dates, exact floats, true/false."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ExportError(f"refusing to export non-finite number {value!r}")
        return repr(value)
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    return str(value)


def export_ranking_csv(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str], as_of: date | None = None) -> int:
    """Write one day's ranking as CSV with ``RANKING_CSV_COLUMNS``; returns the number of rows."""
    rows = ranking_rows(con, as_of)

    def write(handle: IO[bytes]) -> None:
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(RANKING_CSV_COLUMNS)
        for row in rows:
            writer.writerow([csv_cell(row[column]) for column in RANKING_CSV_COLUMNS])
        text.flush()
        text.detach()  # leave the handle open for write_atomic's fsync

    write_atomic(path, write)
    return len(rows)


# --- JSON --------------------------------------------------------------------------------


def json_value(value: Any) -> Any:
    if isinstance(value, (date, datetime)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        raise ExportError(f"refusing to export non-finite number {value!r}")
    return value


def ranking_document(
    rows: list[dict[str, Any]],
    *,
    as_of: date,
    reference_gpu: str,
    sources: list[dict[str, Any]],
    generated_at: datetime,
) -> dict[str, Any]:
    """The JSON export as a plain object, so that it can be checked without touching disk."""
    used_references = {row["reference_gpu"] for row in rows if row.get("reference_gpu")}
    if used_references and used_references != {reference_gpu}:
        raise ExportError(
            f"ranking for {as_of.isoformat()} is relative to {sorted(used_references)}, "
            f"not to {reference_gpu!r}"
        )
    normalized_sources = [normalize_source(source) for source in sources]
    return {
        "generated_at": generated_at.astimezone(timezone.utc).isoformat(),
        "as_of": as_of.isoformat(),
        "reference_gpu": reference_gpu,
        "schema_version": SCHEMA_VERSION,
        "sources": normalized_sources,
        "attribution": attribution_lines(normalized_sources),
        "rows": [{field: json_value(row.get(field)) for field in RANKING_JSON_FIELDS} for row in rows],
    }


def export_ranking_json(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str],
    *,
    as_of: date | None = None,
    reference_gpu: str,
    sources: list[dict[str, Any]],
    generated_at: datetime | None = None,
) -> int:
    """Write the ranking document and ``ranking.schema.json`` beside it; returns the number of rows."""
    target = validate_export_path(path)
    day = resolve_as_of(con, as_of)
    rows = ranking_rows(con, day)
    document = ranking_document(
        rows,
        as_of=day,
        reference_gpu=reference_gpu,
        sources=sources,
        generated_at=generated_at or datetime.now(timezone.utc),
    )
    text = json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
    schema_target = target.parent / "ranking.schema.json"
    if schema_target != target:
        write_atomic(schema_target, lambda handle: handle.write(SCHEMA_PATH.read_bytes()))
    write_text_atomic(target, text)
    return len(rows)


# --- Parquet -----------------------------------------------------------------------------


def export_parquet(con: duckdb.DuckDBPyConnection, path: str | os.PathLike[str], as_of: date | None = None) -> int:
    """Write one day's ranking as Parquet; returns the number of rows.

    Written with pyarrow into the atomic temp file rather than with DuckDB's
    ``COPY ... TO 'path'``: COPY cannot take the path as a bound parameter, so it would
    have to be spliced into the SQL text, and a file name with a quote in it would then be
    SQL. Going through Arrow keeps the day a bound parameter and the path out of SQL.
    """
    import pyarrow.parquet as pq

    table = ranking_arrow_table(con, as_of)
    write_atomic(path, lambda handle: pq.write_table(table, handle, compression="zstd"))
    return table.num_rows


# --- sources and attribution ---------------------------------------------------------------

# What the warehouse itself is the source of, by name prefix -> (kind, attribution, licence). The
# fetched sources describe themselves (their module's declaration, written by every run into the
# `sources` table); both are looked up by longest matching prefix.
OWN_SOURCES: dict[str, tuple[str, str, str]] = {
    "import:": ("listings", "Imported listings supplied by the operator", "as supplied by the operator"),
    "local": ("perf", "Training benchmarks measured locally with gpuvalue", "MIT"),
    "estimate": ("perf", "Performance estimated from specifications by gpuvalue", "MIT"),
    "fx": ("fx", "Exchange rates", "as published by the rate provider"),
}


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


SOURCE_FIELDS = ("name", "kind", "status", "fetched_at", "as_of", "attribution", "licence")


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
    """The base credits plus every named source's, without duplicates, in a stable order."""
    lines = list(BASE_ATTRIBUTION)
    for source in sources:
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
    """Each source's latest run status, last successful fetch, and the newest data it gave.

    Run status comes from ``runs``; freshness also from the data itself, so a database
    loaded without run records (an import, a replay) still says how old each input is.
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

    latest_runs = con.execute(
        """
        SELECT source, status,
               max(CASE WHEN status = 'ok' THEN coalesce(finished_at, started_at) END)
                   OVER (PARTITION BY source) AS last_ok,
               max(CASE WHEN status = 'ok' THEN as_of END) OVER (PARTITION BY source) AS last_ok_day
        FROM runs
        QUALIFY row_number() OVER (PARTITION BY source ORDER BY started_at DESC, run_id DESC) = 1
        """
    ).fetchall()
    for name, status, last_ok, last_ok_day in latest_runs:
        item = entry(name)
        item["status"] = status
        item["fetched_at"] = newer(item["fetched_at"], last_ok)
        item["as_of"] = newer(item["as_of"], last_ok_day)

    data_freshness = [
        "SELECT source, max(last_seen), CAST(max(last_seen) AS DATE) FROM listings GROUP BY source",
        "SELECT source, max(fetched_at), CAST(max(fetched_at) AS DATE) FROM gpu_specs GROUP BY source",
        "SELECT source, max(loaded_at), max(as_of) FROM perf GROUP BY source",
        "SELECT source, NULL, max(rate_date) FROM fx_rates GROUP BY source",
    ]
    for query in data_freshness:
        for name, fetched_at, day in con.execute(query).fetchall():
            item = entry(name)
            item["fetched_at"] = newer(item["fetched_at"], fetched_at)
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


# --- everything at once ----------------------------------------------------------------------


def export_feed(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str],
    *,
    home_page_url: str | None = None,
    feed_url: str | None = None,
) -> int:
    """JSON Feed of ranking days and notable moves; see ``gpuvalue.warehouse.feed``."""
    # Imported here: the feed module uses this module's atomic writer.
    from gpuvalue.warehouse.feed import export_feed as write_feed

    return write_feed(con, path, home_page_url=home_page_url, feed_url=feed_url)


def export_all(con: duckdb.DuckDBPyConnection, out_dir: str | os.PathLike[str], **meta: Any) -> dict[str, Path]:
    """Every download format into ``out_dir`` (created if missing), for one day.

    ``meta`` may carry ``as_of``, ``reference_gpu`` (default: the one the ranking used),
    ``sources`` (default: ``sources_from_db``), ``home_page_url``, ``feed_url`` and
    ``generated_at``.
    """
    known = {"as_of", "reference_gpu", "sources", "home_page_url", "feed_url", "generated_at"}
    unknown = set(meta) - known
    if unknown:
        raise TypeError(f"export_all got unknown options: {', '.join(sorted(unknown))}")
    directory = prepare_export_dir(out_dir)
    day = resolve_as_of(con, meta.get("as_of"))
    reference_gpu = meta.get("reference_gpu")
    if reference_gpu is None:
        references = con.execute(
            "SELECT DISTINCT reference_gpu FROM ranking_daily WHERE as_of = ? ORDER BY 1", [day]
        ).fetchall()
        if len(references) != 1:
            raise ExportError(f"ranking for {day.isoformat()} mixes reference GPUs; pass reference_gpu")
        reference_gpu = references[0][0]
    sources = meta.get("sources")
    if sources is None:
        sources = sources_from_db(con)

    paths = {
        "csv": directory / "ranking.csv",
        "json": directory / "ranking.json",
        "schema": directory / "ranking.schema.json",
        "feed": directory / "feed.json",
        "parquet": directory / "ranking.parquet",
    }
    export_ranking_csv(con, paths["csv"], day)
    export_ranking_json(
        con,
        paths["json"],
        as_of=day,
        reference_gpu=reference_gpu,
        sources=sources,
        generated_at=meta.get("generated_at"),
    )
    export_parquet(con, paths["parquet"], day)
    export_feed(con, paths["feed"], home_page_url=meta.get("home_page_url"), feed_url=meta.get("feed_url"))
    return paths


__all__ = [
    "BASE_ATTRIBUTION",
    "ExportError",
    "RANKING_CSV_COLUMNS",
    "RANKING_JSON_FIELDS",
    "SCHEMA_PATH",
    "SCHEMA_VERSION",
    "attribution_lines",
    "export_all",
    "export_feed",
    "export_parquet",
    "export_ranking_csv",
    "export_ranking_json",
    "ranking_document",
    "ranking_rows",
    "sources_from_db",
    "validate_export_path",
    "write_atomic",
]
