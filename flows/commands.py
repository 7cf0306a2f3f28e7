"""The commands beyond the daily run: catalog, performance, imports, maintenance, scheduling."""

from __future__ import annotations

import json
import sys
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Annotated, Optional

import typer

from gpuvalue.flows.cli import DbOpt, _fail, _jsonable, _parse_date, _print_table, _reader, _settings, app, err, import_app, out


@app.command()
def gpus(
    query: Annotated[Optional[str], typer.Argument(help="Case-insensitive substring of the model name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines, one object per model.")] = False,
    db: DbOpt = None,
) -> None:
    """Show catalog rows (all without QUERY) with the source of each value."""
    con = _reader(db)
    try:
        cur = con.execute(
            "SELECT model, vendor, architecture, segment, release_date, memory_gb, bandwidth_gb_s, fp32_tflops, "
            "fp16_tflops, tensor_fp16_tflops, compute_capability, form_factor, launch_price_usd, framework_supported, "
            "desktop_usable, released, provenance FROM gpus WHERE $q IS NULL OR model ILIKE '%' || $q || '%' ORDER BY model",
            {"q": query},
        )
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    finally:
        con.close()
    if as_json:
        for r in rows:
            r["provenance"] = json.loads(r["provenance"]) if r["provenance"] else {}
            out.file.write(json.dumps({k: _jsonable(v) for k, v in r.items()}) + "\n")
        return
    show = ("model", "vendor", "architecture", "segment", "release_date", "memory_gb", "bandwidth_gb_s",
            "fp32_tflops", "compute_capability", "launch_price_usd")
    _print_table(list(show) + ["sources"], [
        tuple(r[c] for c in show) + (", ".join(sorted({v.get("source", "?") for v in json.loads(r["provenance"] or "{}").values()})),)
        for r in rows
    ])


@app.command()
def perf(
    estimate: Annotated[bool, typer.Option("--estimate", help="The spec-based estimate for every card, ignoring measurements.")] = False,
    precision: Annotated[str, typer.Option("--precision", help="fp16 (mixed) or fp32 (tf32 on Ampere+).")] = "fp16",
    as_json: Annotated[bool, typer.Option("--json", help="JSON lines.")] = False,
    evaluate: Annotated[bool, typer.Option("--evaluate", help="Print the leave-one-card-out accuracy table against both baselines.")] = False,
    db: DbOpt = None,
) -> None:
    """Relative training performance per catalog GPU (measured where it exists, else estimated)."""
    if precision not in ("fp16", "fp32"):
        _fail("--precision must be fp16 or fp32")
    if evaluate:
        from gpuvalue.models.perf_eval import evaluation_report

        out.print(evaluation_report())
        return
    settings = _settings(db)
    con = _reader(db)
    try:
        where = "source = 'estimate'" if estimate else "TRUE"
        cur = con.execute(
            f"""
            WITH best AS (
                SELECT *, row_number() OVER (PARTITION BY model ORDER BY measured DESC, (source = 'local') DESC,
                                                coalesce(workloads, 0) DESC, source) AS pick
                FROM perf WHERE precision = $p AND {where}
            ), ref AS (SELECT relative_perf AS r FROM best WHERE model = $ref AND pick = 1)
            SELECT model, relative_perf / coalesce((SELECT r FROM ref), 1.0) AS relative_perf, source, method,
                   $ref AS reference, precision
            FROM best WHERE pick = 1 ORDER BY relative_perf DESC, model
            """,  # `where` is one of two constants above
            {"p": precision, "ref": settings.reference_gpu},
        )
        cols = [d[0] for d in cur.description]
        rows = [dict(zip(cols, r)) for r in cur.fetchall()]
    finally:
        con.close()
    if as_json:
        for r in rows:
            r["relative_perf"] = round(r["relative_perf"], 4)
            out.file.write(json.dumps(r) + "\n")
        return
    _print_table(cols, [tuple(r.values()) for r in rows])


@import_app.command("listings")
def import_listings(
    file: Annotated[Path, typer.Argument(help="CSV with title, subtitle, price, shipping, total_price, sold_date, link.")],
    source: Annotated[str, typer.Option("--source", help="A name for this data set, e.g. ebay-sold-2020.")],
    db: DbOpt = None,
) -> None:
    """Import historical sold listings through the same matching and cleaning as live data."""
    from gpuvalue.flows import pipeline as P
    from gpuvalue.scrapers.errors import ParseError
    from gpuvalue.scrapers.listing_csv import parse_listing_csv
    from gpuvalue.warehouse.db import RunLock, WarehouseError, open_database

    if not file.is_file():
        _fail(f"no such file: {file}")
    settings = _settings(db)
    try:
        listings = parse_listing_csv(file.read_text(encoding="utf-8-sig"), f"import:{source}", datetime.now(timezone.utc))
    except (ParseError, UnicodeDecodeError) as exc:
        _fail(str(exc))
    try:
        with RunLock(settings.db):
            con = open_database(settings.db)
            try:
                matcher = P.catalog_matcher(con)
                rows = P.listing_rows(listings, matcher)
                n = P.load_listings(con, rows)
            finally:
                con.close()
    except WarehouseError as exc:
        _fail(str(exc))
    matched = sum(1 for r in rows if r["model"])
    out.print(f"imported {n} listings from {file} as import:{source}; {matched} matched to one GPU model")


@app.command()
def rematch(db: DbOpt = None) -> None:
    """Re-match every stored listing with the current matcher (e.g. after an upgrade)."""
    from gpuvalue.flows import pipeline as P
    from gpuvalue.warehouse.db import RunLock, open_database

    settings = _settings(db)
    with RunLock(settings.db):
        con = open_database(settings.db)
        try:
            matcher = P.catalog_matcher(con)
            rows = con.execute("SELECT source, listing_id, title, subtitle, condition FROM listings").fetchall()
            changed = []
            for source, lid, title, subtitle, condition in rows:
                r = matcher.match(title, subtitle, condition)
                changed.append((r.model, r.reason, source, lid))
            con.execute("BEGIN TRANSACTION")
            con.executemany("UPDATE listings SET model = ?, match_reason = ? WHERE source = ? AND listing_id = ?", changed)
            con.execute("COMMIT")
        finally:
            con.close()
    out.print(f"re-matched {len(changed)} listings")


@app.command()
def backup(
    out_dir: Annotated[Path, typer.Option("--out", help="An empty or new folder for the export.")],
    db: DbOpt = None,
) -> None:
    """Export the whole database (DuckDB EXPORT DATABASE, Parquet) to move it across DuckDB versions."""
    from gpuvalue.warehouse.maintenance import backup_database

    settings = _settings(db)
    try:
        backup_database(settings.db, out_dir)
    except (OSError, ValueError) as exc:
        _fail(str(exc))
    out.print(f"backed up {settings.db} to {out_dir}")


@app.command()
def restore(
    from_dir: Annotated[Path, typer.Option("--from", help="A folder written by gpuvalue backup.")],
    db: DbOpt = None,
) -> None:
    """Restore a backup into a new database file (refuses to overwrite an existing one)."""
    from gpuvalue.warehouse.maintenance import restore_database

    settings = _settings(db)
    try:
        restore_database(from_dir, settings.db)
    except (OSError, ValueError) as exc:
        _fail(str(exc))
    out.print(f"restored {from_dir} into {settings.db}")
