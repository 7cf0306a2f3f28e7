"""The rental ranking as downloads and as a feed item, beside the used ranking's files.

Files (written by ``export_all`` into the same folder once the warehouse holds rental prices):

- ``rental_ranking.csv`` / ``rental_ranking.parquet``: ``rent_ranking_latest``, one row per model, in
  ``RENTAL_COLUMNS`` order;
- ``rental_ranking.json`` with ``rental_ranking.schema.json`` beside it: the same rows, plus the
  rent-or-buy comparison of every rental card (``rent_vs_buy``) and the assumptions it was made under;
- ``rent_vs_buy.csv``: that comparison, each row stating the assumptions.

The feed gains one item per rental date (its id is the date, so a rerun announces nothing twice).
"""

from __future__ import annotations

import csv
import io
import json
import os
from datetime import date, datetime, timezone
from html import escape
from pathlib import Path
from typing import IO, Any

import duckdb

from gpuvalue.models.export_rows import RentalRow, RentVsBuyRow
from gpuvalue.models.text_safety import json_controls_escaped
from gpuvalue.models.rent_vs_buy import Assumptions
from gpuvalue.warehouse.export_files import csv_cell, prepare_export_dir, write_atomic, write_text_atomic
from gpuvalue.warehouse.source_dates import attribution_lines, json_value, normalize_source, sources_from_db
from gpuvalue.warehouse.rental import rent_vs_buy_rows
from gpuvalue.warehouse.sql_files import arrow_table, dicts, scalar

RENTAL_SCHEMA_VERSION = "1.3"  # 1.1: ranks put prices of comparable dates first (migration 017); 1.2: the
# median across providers is of those same prices; 1.3: each row's price_tier, price_age_days, spot_tier,
# spot_age_days and framework_support
RENTAL_SCHEMA_PATH = Path(__file__).parent / "schemas" / "rental_ranking.schema.json"

# The columns of the rental files, in order (sql/rental_ranking_export.sql selects the same ones), and
# of the rent-or-buy comparison: each from its row's one contract, models/export_rows.py.
RENTAL_COLUMNS: tuple[str, ...] = RentalRow.json_fields()

RENT_VS_BUY_COLUMNS: tuple[str, ...] = RentVsBuyRow.json_fields()

FILES = {
    "rental_csv": "rental_ranking.csv",
    "rental_json": "rental_ranking.json",
    "rental_schema": "rental_ranking.schema.json",
    "rental_parquet": "rental_ranking.parquet",
    "rent_vs_buy_csv": "rent_vs_buy.csv",
}
TOP_IN_FEED_ITEM = 10


def has_rental_prices(con: duckdb.DuckDBPyConnection) -> bool:
    return bool(scalar(con, "rental_prices_daily_count"))


def rental_rows(con: duckdb.DuckDBPyConnection) -> list[dict[str, Any]]:
    """Every model of the rental ranking: ranked on demand first, then spot-only models by spot rank."""
    return dicts(con, "rental_ranking_export")


def _csv(path: Path, columns: tuple[str, ...], rows: list[dict[str, Any]]) -> None:
    def write(handle: IO[bytes]) -> None:
        text = io.TextIOWrapper(handle, encoding="utf-8", newline="")
        writer = csv.writer(text, lineterminator="\n")
        writer.writerow(columns)
        for row in rows:
            writer.writerow([csv_cell(row.get(column)) for column in columns])
        text.flush()
        text.detach()  # leave the handle open for write_atomic's fsync

    write_atomic(path, write)


def rental_document(rows: list[dict[str, Any]], comparisons: list[dict[str, Any]], *, assumptions: Assumptions,
                    sources: list[dict[str, Any]], generated_at: datetime) -> dict[str, Any]:
    """The JSON export as a plain object (checked against its schema without touching disk)."""
    normalized = [normalize_source(source) for source in sources]
    first = rows[0] if rows else {}
    return {
        "generated_at": generated_at.astimezone(timezone.utc).isoformat(),
        "as_of": json_value(first.get("as_of")),
        "reference_gpu": first.get("reference_gpu"),
        "perf_precision": first.get("perf_precision"),
        "schema_version": RENTAL_SCHEMA_VERSION,
        "assumptions": assumptions.as_dict(),
        "sources": normalized,
        "attribution": attribution_lines(normalized),
        "rows": [{c: json_value(row.get(c)) for c in RENTAL_COLUMNS} for row in rows],
        "rent_vs_buy": [{c: json_value(row.get(c)) for c in RENT_VS_BUY_COLUMNS} for row in comparisons],
    }


def export_rental(con: duckdb.DuckDBPyConnection, directory: str | os.PathLike[str], *,
                  assumptions: Assumptions | None = None, sources: list[dict[str, Any]] | None = None,
                  generated_at: datetime | None = None) -> dict[str, Path]:
    """Write the rental file set into ``directory``; nothing (an empty dict) while the warehouse holds no
    rental prices, so a warehouse without rental sources exports what it always did."""
    if not has_rental_prices(con):
        return {}
    import pyarrow.parquet as pq

    folder = prepare_export_dir(directory)
    paths = {key: folder / name for key, name in FILES.items()}
    assumptions = assumptions or Assumptions()
    rows = rental_rows(con)
    comparisons = rent_vs_buy_rows(con, assumptions)
    _csv(paths["rental_csv"], RENTAL_COLUMNS, rows)
    _csv(paths["rent_vs_buy_csv"], RENT_VS_BUY_COLUMNS, comparisons)
    document = rental_document(rows, comparisons, assumptions=assumptions,
                               sources=sources if sources is not None else sources_from_db(con),
                               generated_at=generated_at or datetime.now(timezone.utc))
    write_atomic(paths["rental_schema"], lambda handle: handle.write(RENTAL_SCHEMA_PATH.read_bytes()))
    write_text_atomic(paths["rental_json"], json_controls_escaped(json.dumps(document, indent=2, ensure_ascii=False, allow_nan=False)) + "\n")
    table = arrow_table(con, "rental_ranking_export")
    write_atomic(paths["rental_parquet"], lambda handle: pq.write_table(table, handle, compression="zstd"))
    return paths


# --- the feed ------------------------------------------------------------------------------------


def rental_feed_item(rows: list[dict[str, Any]]) -> dict[str, Any] | None:
    """One item for the newest rental date: the top on-demand rentals and the best spot one. Pure."""
    ranked = sorted((r for r in rows if r.get("rank") and r.get("framework_supported") is not False),
                    key=lambda r: r["rank"])[:TOP_IN_FEED_ITEM]
    if not ranked:
        return None
    day: date = ranked[0]["as_of"]
    reference = ranked[0]["reference_gpu"]

    def line(r: dict[str, Any]) -> str:
        return (f"{r['model']}: ${r['usd_per_gpu_hour']:.2f}/GPU-hour on {r['provider']} (price of "
                f"{r['price_as_of'].isoformat()}), perf {r['relative_perf']:.2f}x, "
                f"${r['usd_per_reference_hour']:.3f} per {reference}-hour")

    lines = [f"{r['rank']}. {line(r)}" for r in ranked]
    spot = min((r for r in rows if r.get("spot_rank") and r.get("framework_supported") is not False),
               key=lambda r: r["spot_rank"], default=None)
    spot_text = (f"Cheapest reference hour on spot: {spot['model']} at ${spot['spot_usd_per_gpu_hour']:.2f}/GPU-hour "
                 f"on {spot['spot_provider']} (price of {spot['spot_as_of'].isoformat()})." if spot else "")
    intro = (f"Cloud GPUs by training speed per rented dollar, each provider's newest prices on or before "
             f"{day.isoformat()} (performance relative to {reference}):")
    text = intro + "\n" + "\n".join(lines) + (f"\n{spot_text}" if spot_text else "")
    html = (f"<p>{escape(intro)}</p><ol>" + "".join(f"<li>{escape(line(r))}</li>" for r in ranked) + "</ol>"
            + (f"<p>{escape(spot_text)}</p>" if spot_text else ""))
    return {
        "id": f"gpuvalue:rental-ranking:{day.isoformat()}",
        "title": f"Cloud GPU rental ranking, prices of {day.isoformat()}: #1 {ranked[0]['model']} on {ranked[0]['provider']}",
        "content_text": text,
        "content_html": html,
        "date_published": f"{day.isoformat()}T00:00:00Z",
        "tags": ["rental"],
    }


def add_rental_item(con: duckdb.DuckDBPyConnection, feed: dict[str, Any]) -> dict[str, Any]:
    """The feed with the rental item among its items, newest first (unchanged without rental prices)."""
    if not has_rental_prices(con):
        return feed
    item = rental_feed_item(rental_rows(con))
    if item is not None:
        items = [i for i in feed["items"] if i["id"] != item["id"]] + [item]
        items.sort(key=lambda i: i["date_published"], reverse=True)  # stable: equal dates keep their order
        feed["items"] = items
    return feed
