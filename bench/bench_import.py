"""Importing a sold-listings export: the CSV parser against reading the same file's cells alone.

    uv run python bench/bench_import.py [--quick]

The export is the two real excerpts in tests/fixtures/listings (400 sold listings of 2020: their
titles, subtitles, dates and links as the exports have them) over and over, each copy its own item,
200,000 rows (20,000 with --quick). Variants, each in a process of its own:

- reading the cells: ``csv.DictReader`` over the text, every row a dict (the floor);
- the parser: ``listing_csv.read_listing_csv`` (clean, check and convert every row: a ``Listing``);
- the whole command, ``gpuvalue import listings`` into an empty warehouse (parse, match, load,
  rank), as a user runs it: the interpreter's start included.
"""

from __future__ import annotations

import csv
import io
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import REPO, bench_arguments, emit, run_child  # noqa: E402

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


def main(argv: list[str] | None = None) -> list[str]:
    ap = bench_arguments()
    args = ap.parse_args(argv)
    if args.child:
        child(*args.rest)
        return []
    n = 20_000 if args.quick else 200_000
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        export = tmp / "sold.csv"
        write_export(export, n)
        cells = run_child("reading the cells (csv.DictReader)", "bench_import", "cells", str(export))
        parsed = run_child("the parser (read_listing_csv)", "bench_import", "parse", str(export))
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "gpuvalue.flows.cli", "import", "listings", str(export), "--source", "bench",
             "--db", str(tmp / "g.duckdb")], capture_output=True, text=True, cwd=REPO)
        command = time.perf_counter() - t0
        if done.returncode != 0:
            raise RuntimeError(f"the import failed: {done.stderr[-2000:]}")
        return [
            f"[import] a sold-listings export of {n:,} rows",
            "[import] " + cells.line(),
            "[import] " + parsed.line(),
            f"[import] the parser: {parsed.info['rows_per_s']:,} rows/s, {parsed.seconds / cells.seconds:.1f}x "
            f"the time of reading the cells",
            f"[import] `gpuvalue import listings` into an empty warehouse: {command:.1f} s "
            f"({n / command:,.0f} rows/s, the interpreter's start included): {done.stdout.strip()}",
        ]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
