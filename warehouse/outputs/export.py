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
import os
from datetime import date, datetime, timezone
from pathlib import Path
from typing import IO, Any

import duckdb

from gpuvalue.models.export_rows import RankingRow
from gpuvalue.models.text_safety import json_controls_escaped
from gpuvalue.warehouse import sql_files
from gpuvalue.warehouse.export_files import (  # re-exported: callers catch ExportError from here
    csv_cell,
    ExportError,
    prepare_export_dir,
    validate_export_path,
    write_atomic,
    write_text_atomic,
)
from gpuvalue.warehouse.source_dates import (  # re-exported: exports, feed and report share them
    BASE_ATTRIBUTION,
    attribution_lines,
    json_value,
    normalize_source,
    ranking_is_replay,
    sources_from_db,
)

SCHEMA_VERSION = "1.2"  # 1.1: replay and note; the index price kind, framework_support, passive, price_source, price_age_days, price_tier; 1.2: perf_low, perf_high
SCHEMA_PATH = Path(__file__).parent / "schemas" / "ranking.schema.json"

# The columns of ranking.csv, and the fields of ranking.json's rows and ranking.parquet (the CSV's and
# what a program needs to judge a number): both from the row's one contract, models/export_rows.py.
RANKING_CSV_COLUMNS: tuple[str, ...] = RankingRow.csv_columns()
RANKING_JSON_FIELDS: tuple[str, ...] = RankingRow.json_fields()

# Credited in every export: the ranking is always built from these kinds of data.


# --- reading the materialized ranking -------------------------------------------------


def resolve_as_of(con: duckdb.DuckDBPyConnection, as_of: date | None) -> date:
    """The latest ranked day by default; a day without a ranking is an error, not an empty file."""
    if as_of is None:
        latest = sql_files.scalar(con, "ranking_latest_day")
        if latest is None:
            raise ExportError("nothing to export: ranking_daily is empty")
        return latest
    found = sql_files.scalar(con, "ranking_day_count", [as_of])
    if not found:
        raise ExportError(f"nothing to export: no ranking for {as_of.isoformat()}")
    return as_of


def ranking_rows(con: duckdb.DuckDBPyConnection, as_of: date | None = None) -> list[dict[str, Any]]:
    """All ``ranking_daily`` columns of one day, best rank first."""
    day = resolve_as_of(con, as_of)
    return sql_files.dicts(con, "ranking_day_rows", [day])


def ranking_arrow_table(con: duckdb.DuckDBPyConnection, as_of: date | None = None):
    """The day's ranking in CSV column order (then the extra JSON fields), as an Arrow table."""
    day = resolve_as_of(con, as_of)
    return sql_files.arrow_table(con, "ranking_day_parquet", [day])  # its columns: RANKING_JSON_FIELDS


# --- CSV ---------------------------------------------------------------------------------


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


def ranking_document(
    rows: list[dict[str, Any]],
    *,
    as_of: date,
    reference_gpu: str,
    sources: list[dict[str, Any]],
    generated_at: datetime,
    replay: bool = False,
) -> dict[str, Any]:
    """The JSON export as a plain object, so that it can be checked without touching disk.

    ``replay``: the ranking was built from recorded pages; the document says so (``replay`` and
    ``note``), since the CSV beside it cannot."""
    used_references = {row["reference_gpu"] for row in rows if row.get("reference_gpu")}
    if used_references and used_references != {reference_gpu}:
        raise ExportError(
            f"ranking for {as_of.isoformat()} is relative to {sorted(used_references)}, "
            f"not to {reference_gpu!r}"
        )
    normalized_sources = [normalize_source(source) for source in sources]
    document = {
        "generated_at": generated_at.astimezone(timezone.utc).isoformat(),
        "as_of": as_of.isoformat(),
        "reference_gpu": reference_gpu,
        "schema_version": SCHEMA_VERSION,
        "replay": bool(replay),
    }
    if replay:
        document["note"] = REPLAY_NOTE
    return {
        **document,
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
    replay: bool | None = None,
) -> int:
    """Write the ranking document and ``ranking.schema.json`` beside it; returns the number of rows.

    ``replay`` defaults to what the runs table says of the ranking day."""
    target = validate_export_path(path)
    day = resolve_as_of(con, as_of)
    rows = ranking_rows(con, day)
    document = ranking_document(
        rows,
        as_of=day,
        reference_gpu=reference_gpu,
        sources=sources,
        generated_at=generated_at or datetime.now(timezone.utc),
        replay=ranking_is_replay(con, day) if replay is None else replay,
    )
    text = json_controls_escaped(json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)) + "\n"
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
    credits = attribution_lines(normalize_source(source) for source in sources_from_db(con))
    # whose data the rows are made of, in the file's own metadata (CC BY-SA material requires it)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}),
                                           b"gpuvalue.attribution": json.dumps(credits).encode("utf-8")})
    write_atomic(path, lambda handle: pq.write_table(table, handle, compression="zstd"))
    return table.num_rows


# --- sources and attribution ---------------------------------------------------------------

REPLAY_NOTE = (
    "Built offline from recorded pages (a replay): no page was fetched for this ranking day. Every price and "
    "figure is as old as its recording; sources[].as_of gives the date of each source's data and rows[].price_as_of "
    "the date of each price."
)


# --- everything at once ----------------------------------------------------------------------


def export_feed(
    con: duckdb.DuckDBPyConnection,
    path: str | os.PathLike[str],
    *,
    home_page_url: str | None = None,
    feed_url: str | None = None,
    replay: bool | None = None,
    view: Any = None,
) -> int:
    """JSON Feed of ranking days and notable moves; see ``gpuvalue.warehouse.outputs.feed``."""
    # Imported here: the feed module uses this module's atomic writer.
    from gpuvalue.warehouse.outputs.feed import export_feed as write_feed

    return write_feed(con, path, home_page_url=home_page_url, feed_url=feed_url, replay=replay, view=view)


def export_all(con: duckdb.DuckDBPyConnection, out_dir: str | os.PathLike[str], **meta: Any) -> dict[str, Path]:
    """Every download format into ``out_dir`` (created if missing), for one day.

    ``meta`` may carry ``as_of``, ``reference_gpu`` (default: the one the ranking used),
    ``sources`` (default: ``sources_from_db``), ``home_page_url``, ``feed_url``,
    ``generated_at``, ``replay`` (default: whether the day's newest run was a replay),
    ``rent_assumptions`` (the rent-or-buy assumptions of the rental files) and ``view`` (the cards
    the feed shows, a ``BuyerView``: default, as `rank` shows them).
    """
    known = {"as_of", "reference_gpu", "sources", "home_page_url", "feed_url", "generated_at", "replay", "rent_assumptions",
             "view"}
    unknown = set(meta) - known
    if unknown:
        raise TypeError(f"export_all got unknown options: {', '.join(sorted(unknown))}")
    directory = prepare_export_dir(out_dir)
    day = resolve_as_of(con, meta.get("as_of"))
    reference_gpu = meta.get("reference_gpu")
    if reference_gpu is None:
        references = sql_files.rows(con, "ranking_day_reference_gpus", [day])
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
        replay=meta.get("replay"),
    )
    export_parquet(con, paths["parquet"], day)
    export_feed(con, paths["feed"], home_page_url=meta.get("home_page_url"), feed_url=meta.get("feed_url"),
                replay=meta.get("replay"), view=meta.get("view"))
    paths.update(_export_rental(con, directory, sources, meta))
    return paths


def _export_rental(con: duckdb.DuckDBPyConnection, directory: Path, sources: list[dict[str, Any]],
                   meta: dict[str, Any]) -> dict[str, Path]:
    """The rental file set beside the ranking (see ``gpuvalue.warehouse.outputs.rental_export``); none without rental prices."""
    from gpuvalue.warehouse.outputs.rental_export import export_rental

    return export_rental(con, directory, assumptions=meta.get("rent_assumptions"), sources=sources,
                         generated_at=meta.get("generated_at"))


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
    "ranking_is_replay",
    "ranking_rows",
    "sources_from_db",
    "validate_export_path",
    "write_atomic",
]
