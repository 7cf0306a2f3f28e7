"""Importing a sold-listings export: the CSV parser against reading the same file's cells alone.

    uv run python bench/bench_import.py [--quick]

The export is the two real excerpts in tests/fixtures/listings (400 sold listings of 2020: their
titles, subtitles, dates and links as the exports have them) over and over, each copy its own item,
200,000 rows (20,000 with --quick). Variants, each in a process of its own:

- reading the cells: ``csv.DictReader`` over the text, every row a dict (the floor);
- the parser: ``listing_csv.read_listing_csv`` (clean, check and convert every row: a ``Listing``);
- the whole command, ``gpuvalue import listings`` into an empty warehouse (parse, match, load,
  rank), as a user runs it: the interpreter's start included, with its peak memory;
- the same command on 1,000,000 rows (100,000 with --quick; skipped with --no-million): its peak
  memory against the 200,000-row one's (target: within 1.5x, and at most 1 GB).
"""

from __future__ import annotations

import csv
import io
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import REPO, bench_arguments, emit, run_child, run_command  # noqa: E402

EXCERPTS = [REPO / "tests" / "fixtures" / "listings" / f"ebay_sold_2020_{card}_driscoll42_excerpt200.csv"
            for card in ("rtx3070", "rtx3090")]


def write_export(path: Path, n: int) -> None:
    rows = [row for f in EXCERPTS for row in csv.DictReader(f.open(encoding="utf-8", newline=""))]
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=list(rows[0]))
        writer.writeheader()
        for i in range(n):
            row = dict(rows[i % len(rows)])
            row["link"] = f"https://www.ebay.com/itm/{100_000_000_000 + i}?hash=item{i:x}"
            writer.writerow(row)


def child(kind: str, export: str) -> None:
    from datetime import UTC, datetime

    from gpuvalue.scrapers.listing_csv import read_listing_csv

    text = Path(export).read_text(encoding="utf-8")
    t0 = time.perf_counter()
    if kind == "cells":
        rows = sum(1 for _ in csv.DictReader(io.StringIO(text, newline="")))
    else:
        rows = len(read_listing_csv(text, "import:bench", datetime.now(UTC)).listings)
    seconds = time.perf_counter() - t0
    emit(seconds=seconds, rows=rows, rows_per_s=round(rows / seconds))


def import_command(export: Path, db: Path, name: str):
    """`gpuvalue import listings` as a user runs it, in a process of its own: wall time and peak memory."""
    measured = run_command(name, [sys.executable, "-m", "gpuvalue.flows.cli", "import", "listings", str(export),
                                  "--source", "bench", "--db", str(db)])
    if measured.info["exit"] != 0:
        raise RuntimeError(f"the import failed: {measured.info['stderr_tail']}")
    return measured


def main(argv: list[str] | None = None) -> list[str]:
    ap = bench_arguments()
    ap.add_argument("--no-million", action="store_true", help="skip the 1M-row import's peak memory")
    args = ap.parse_args(argv)
    if args.child:
        child(*args.rest)
        return []
    n = 20_000 if args.quick else 200_000
    large = 100_000 if args.quick else 1_000_000
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        export = tmp / "sold.csv"
        write_export(export, n)
        cells = run_child("reading the cells (csv.DictReader)", "bench_import", "cells", str(export))
        parsed = run_child("the parser (read_listing_csv)", "bench_import", "parse", str(export))
        command = import_command(export, tmp / "g.duckdb", f"gpuvalue import listings, {n:,} rows")
        lines = [
            f"[import] a sold-listings export of {n:,} rows",
            "[import] " + cells.line(),
            "[import] " + parsed.line(),
            f"[import] the parser: {parsed.info['rows_per_s']:,} rows/s, {parsed.seconds / cells.seconds:.1f}x "
            f"the time of reading the cells",
            f"[import] `gpuvalue import listings` into an empty warehouse: {command.seconds:.1f} s "
            f"({n / command.seconds:,.0f} rows/s, the interpreter's start included), peak {command.peak_mb:,.0f} MB",
        ]
        if not args.no_million:
            # The import reads and loads a batch at a time: its peak should not grow with the file.
            export.unlink()
            write_export(export, large)
            big = import_command(export, tmp / "big.duckdb", f"gpuvalue import listings, {large:,} rows")
            ratio = big.peak_mb / command.peak_mb
            met = ratio <= 1.5 and big.peak_mb <= 1024
            lines.append(f"[import] peak memory: {command.peak_mb:,.0f} MB at {n:,} rows, {big.peak_mb:,.0f} MB at "
                         f"{large:,} rows ({big.seconds:.0f} s): {ratio:.2f}x (target <= 1.5x and <= 1 GB: "
                         f"{'met' if met else 'NOT met'})")
        return lines
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
