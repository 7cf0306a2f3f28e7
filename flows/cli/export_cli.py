"""`gpuvalue export` (the ranking as files) and `gpuvalue report` (the buyer's page)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from gpuvalue.flows.cli.cli_app import DbOpt, app, fail, live_status, open_reader, out, parse_date, reader_settings


@app.command()
def export(
    format_: Annotated[Optional[str], typer.Option("--format", help="csv, json, parquet or feed (default: from the --out file's suffix, else csv).")] = None,
    out_path: Annotated[Optional[Path], typer.Option("--out", help="Output file (default ranking.csv, .json or .parquet by the format; feed.json), or with --all a folder (default exports).")] = None,
    all_: Annotated[bool, typer.Option("--all", help="Write every format into the --out folder.")] = False,
    date_: Annotated[Optional[str], typer.Option("--date", help="Ranking of this date (default latest).")] = None,
    db: DbOpt = None,
) -> None:
    """Export the ranking as CSV, JSON (with its JSON Schema), Parquet or a JSON Feed."""
    from gpuvalue.warehouse.outputs import export as ex

    as_of = parse_date(date_)
    if all_ and format_ is not None:
        fail("--all writes every format; drop --format, or drop --all to write one")
    if all_:
        out_path = out_path or Path("exports")
    else:
        format_, out_path = _export_target(format_, out_path)
    settings = reader_settings(db)
    from gpuvalue.models.buyer_view import BuyerView
    from gpuvalue.warehouse.export_files import ExportError, prepare_export_dir, validate_export_path

    try:  # a FIFO, a device or a directory in the way is refused before the database is opened
        prepare_export_dir(out_path) if all_ else validate_export_path(out_path)
    except ExportError as exc:
        fail(str(exc))
    buyer_view = BuyerView(min_memory_gb=settings.min_memory_gb)  # the feed shows what `rank` shows
    con = open_reader(settings)
    try:
        if all_:
            from gpuvalue.models.rent_vs_buy import Assumptions

            files = ex.export_all(con, out_path, as_of=as_of, reference_gpu=settings.reference_gpu,
                                  rent_assumptions=Assumptions.from_settings(settings), view=buyer_view)
            for name, path in files.items():
                out.print(f"wrote {name}: {path}")
            return
        if format_ == "csv":
            n = ex.export_ranking_csv(con, out_path, as_of=as_of)
        elif format_ == "json":
            n = ex.export_ranking_json(con, out_path, as_of=as_of, reference_gpu=settings.reference_gpu,
                                       sources=ex.sources_from_db(con))
        elif format_ == "parquet":
            n = ex.export_parquet(con, out_path, as_of=as_of)
        else:
            n = ex.export_feed(con, out_path, view=buyer_view)
    except ex.ExportError as exc:
        fail(str(exc))
    finally:
        con.close()
    out.print(f"wrote {n} {'items' if format_ == 'feed' else 'rows'} to {out_path}")


EXPORT_FORMATS = {"csv": "ranking.csv", "json": "ranking.json", "parquet": "ranking.parquet", "feed": "feed.json"}


def _export_target(format_: str | None, out_path: Path | None) -> tuple[str, Path]:
    """The format and file of a single export: each given one as it is, a missing format read from the
    file's suffix (a .json file is the ranking's JSON; the feed is asked for by name), a missing file
    named after the format, and neither given: ranking.csv."""
    if format_ is not None and format_ not in EXPORT_FORMATS:
        fail("--format must be csv, json, parquet or feed (or use --all)")
    if format_ is None and out_path is not None:
        format_ = out_path.suffix.lower().lstrip(".")
        if format_ not in ("csv", "json", "parquet"):
            fail(f"cannot tell the format from the name {out_path.name}: give --format csv, json, parquet or feed")
    format_ = format_ or "csv"
    return format_, out_path or Path(EXPORT_FORMATS[format_])


@app.command()
def report(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for index.html (created if missing), or the .html file to write.")] = Path("report"),
    top: Annotated[int, typer.Option("--top", help="Rows in the ranking table.")] = 25,
    db: DbOpt = None,
) -> None:
    """Write the buyer's page: one self-contained index.html (no network; open it from disk or serve it as a static site).

    A buyer sets budget, memory, use case, vendor, framework support, hours a week and electricity price (kept in the URL's query, named as recommend's flags: ?budget=600&min_memory=12) and sees recommend's fastest, best-value and cheapest answers, the price-versus-speed frontier, their price histories and rent or buy. The answers are those `recommend --json` prints for the same inputs.
    """
    if top < 1:
        fail("--top must be at least 1")
    from gpuvalue.models.buyer_view import BuyerView
    from gpuvalue.models.rent_vs_buy import Assumptions
    from gpuvalue.models.answers import recommend_settings
    from gpuvalue.warehouse.outputs import buyer_page
    from gpuvalue.warehouse.export_files import ExportError

    settings = reader_settings(db)
    con = open_reader(settings)
    try:
        with live_status("answering every combination of the page's inputs ..."):
            path = buyer_page.write_page(con, out_dir, view=BuyerView(min_memory_gb=settings.min_memory_gb),
                                         assumptions=Assumptions.from_settings(settings),
                                         price_window_days=settings.price_window_days, table_rows=top,
                                         **recommend_settings(settings))
    except (ExportError, OSError) as exc:
        fail(str(exc))
    finally:
        con.close()
    out.print(f"wrote {path}")
