"""A small warehouse with a realistic ranking, for the export, feed, report and recommend tests.

Prices are typical used-market (eBay sold) figures for mid-2024 and performance is relative
to the RTX 3090 in mixed precision, in line with Lambda's PyTorch training benchmarks. The
price moves are scripted so that the feed has notable moves to report:

- GeForce RTX 3090: $800 -> $690 on 2024-05-05 (a 14% week-over-week drop);
- Radeon RX 7900 XTX: $750 -> $600 on 2024-05-09 (a 20% drop), which also makes it the new
  #1 of the 17-24 GB class on the ranking day 2024-05-09.
"""

from __future__ import annotations

import atexit
import functools
import shutil
import tempfile
from datetime import date, datetime, timedelta
from pathlib import Path

import duckdb

REFERENCE_GPU = "GeForce RTX 3090"
HISTORY_START = date(2024, 4, 17)
RANKING_DAYS = (date(2024, 5, 1), date(2024, 5, 8), date(2024, 5, 9))
LATEST_DAY = RANKING_DAYS[-1]

# model: vendor, architecture, segment, memory_gb, bandwidth_gb_s, relative_perf, perf_source,
#        framework_supported, desktop_usable, tdp_w, price kind, price_n, base price
CARDS: dict[str, tuple] = {
    "GeForce RTX 3090": ("NVIDIA", "Ampere", "desktop", 24.0, 936.2, 1.0, "lambda-pytorch-2024", True, True, 350, "sold", 31, 800.0),
    "GeForce RTX 4090": ("NVIDIA", "Ada Lovelace", "desktop", 24.0, 1008.0, 1.85, "lambda-pytorch-2024", True, True, 450, "sold", 22, 1750.0),
    "GeForce RTX 3080": ("NVIDIA", "Ampere", "desktop", 10.0, 760.3, 0.82, "estimate", True, True, 320, "sold", 40, 420.0),
    "GeForce RTX 3060 12 GB": ("NVIDIA", "Ampere", "desktop", 12.0, 360.0, 0.45, "estimate", True, True, 170, "sold", 57, 230.0),
    "GeForce RTX 3050 8 GB": ("NVIDIA", "Ampere", "desktop", 8.0, 224.0, 0.27, "estimate", True, True, 130, "sold", 12, 170.0),
    "GeForce RTX 4060 Ti 16 GB": ("NVIDIA", "Ada Lovelace", "desktop", 16.0, 288.0, 0.62, "estimate", True, True, 165, "asking", 6, 420.0),
    "GeForce RTX 2080 Ti": ("NVIDIA", "Turing", "desktop", 11.0, 616.0, 0.68, "lambda-tf-2021", True, True, 250, "sold", 18, 300.0),
    "GeForce GTX 1080 Ti": ("NVIDIA", "Pascal", "desktop", 11.0, 484.4, 0.38, "lambda-tf-2021", True, True, 250, "sold", 25, 180.0),
    "GeForce GTX 1660 SUPER": ("NVIDIA", "Turing", "desktop", 6.0, 336.0, 0.22, "estimate", True, True, 125, "launch", 0, 229.0),
    "Tesla V100 PCIe 16 GB": ("NVIDIA", "Volta", "datacenter", 16.0, 897.0, 0.85, "lambda-pytorch-2024", True, True, 250, "sold", 9, 450.0),
    "Radeon RX 7900 XTX": ("AMD", "RDNA 3.0", "desktop", 24.0, 960.0, 0.9, "estimate", True, True, 355, "sold", 15, 750.0),
    "RTX A6000": ("NVIDIA", "Ampere", "workstation", 48.0, 768.0, 1.05, "lambda-pytorch-2024", True, True, 300, "sold", 7, 3800.0),
    "A100 PCIe 40 GB": ("NVIDIA", "Ampere", "datacenter", 40.0, 1555.0, 1.55, "lambda-pytorch-2024", True, True, 250, "asking", 4, 4500.0),
    "H100 SXM5 80 GB": ("NVIDIA", "Hopper", "datacenter", 80.0, 3352.0, 3.2, "lambda-pytorch-2024", True, False, 700, "launch", 0, 30000.0),
    # Awkward: no architecture or bandwidth known, no TDP, and current frameworks cannot run it.
    "Tesla K80": ("NVIDIA", None, "datacenter", 24.0, None, 0.15, "estimate", False, True, None, "sold", 3, 60.0),
}

LAUNCH_DATES = {"GeForce GTX 1660 SUPER": date(2019, 10, 29), "H100 SXM5 80 GB": date(2023, 3, 21)}


def price_on(model: str, day: date) -> float:
    base = CARDS[model][-1]
    if model == "GeForce RTX 3090" and day >= date(2024, 5, 5):
        return 690.0
    if model == "Radeon RX 7900 XTX" and day >= date(2024, 5, 9):
        return 600.0
    if model == "GeForce RTX 4090":
        return base - 2.0 * (day - HISTORY_START).days  # a slow slide, never 10% in a week
    return base


def open_test_database(path: str | Path = ":memory:") -> duckdb.DuckDBPyConnection:
    """The warehouse schema, through the project's opener when it exists."""
    try:
        from gpuvalue.warehouse.db import open_database
    except ImportError:
        open_database = None
    if open_database is not None:
        return open_database(path)
    con = duckdb.connect(str(path))
    migrations = sorted((Path(__file__).resolve().parents[1] / "warehouse" / "migrations").glob("*.sql"))
    for migration in migrations:
        con.execute(migration.read_text())
    return con


SCHEMA_HISTORY = Path(__file__).resolve().parent / "fixtures" / "schema_history"


def schema_history() -> list[tuple[int, str, str]]:
    """(version, name, sql) of each schema version's migration as the gpuvalue of that version shipped
    it (tests/fixtures/schema_history): what built the warehouses older releases left behind. The
    shipped migrations hold only changes to stored tables; the definitions are model files."""
    return [(int(p.name[:3]), p.name, p.read_text(encoding="utf-8")) for p in sorted(SCHEMA_HISTORY.glob("*.sql"))]


def warehouse_at_version(path: str | Path, version: int) -> duckdb.DuckDBPyConnection:
    """A warehouse file as a gpuvalue of schema ``version`` left it (that release's migrations up to
    it, recorded): what an upgrade starts from. A plain connection, not the project's opener, which
    would upgrade it."""
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE schema_version (version INTEGER NOT NULL, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)")
    for number, name, sql in schema_history():
        if number <= version:
            con.execute(sql)
            con.execute("INSERT INTO schema_version VALUES (?, ?, now())", [number, name])
    return con


def price_row(model: str, day: date) -> dict:
    kind, n = CARDS[model][10], CARDS[model][11]
    price = price_on(model, day)
    if kind == "launch":
        return {"price_usd": price, "price_kind": kind, "price_n": 0, "price_q1": None, "price_q3": None,
                "price_as_of": LAUNCH_DATES[model], "stale": True}
    return {"price_usd": price, "price_kind": kind, "price_n": n, "price_q1": round(price * 0.92, 2),
            "price_q3": round(price * 1.07, 2), "price_as_of": day - timedelta(days=1), "stale": False}


def ranking_for(day: date) -> list[dict]:
    rows = []
    for model, (vendor, arch, segment, memory, bandwidth, perf, perf_source, framework, desktop, tdp, *_rest) in CARDS.items():
        price = price_row(model, day)
        rows.append({
            "as_of": day, "model": model, "vendor": vendor, "architecture": arch, "segment": segment,
            "memory_gb": memory, "bandwidth_gb_s": bandwidth, "relative_perf": perf, "perf_source": perf_source,
            "perf_method": "estimate: roofline v1" if perf_source == "estimate" else "measured: geomean of workloads",
            "perf_precision": "fp16", "reference_gpu": REFERENCE_GPU, **price,
            "perf_per_dollar": perf / price["price_usd"] * 1000.0,
            "framework_supported": framework, "desktop_usable": desktop, "tdp_w": tdp,
            "framework_support": "current" if framework else "none", "passive": False,
        })
    rows.sort(key=lambda r: (-r["perf_per_dollar"], r["model"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


def insert_dicts(con: duckdb.DuckDBPyConnection, table: str, rows: list[dict]) -> None:
    """Rows as Arrow, one INSERT per set of columns (executemany took 0.1 s per test warehouse)."""
    import pyarrow as pa

    by_columns: dict[tuple[str, ...], list[dict]] = {}
    for row in rows:
        by_columns.setdefault(tuple(row), []).append(row)
    for columns, same in by_columns.items():
        con.register("incoming_test_rows", pa.Table.from_pylist(same))
        try:
            con.execute(f"INSERT INTO {table} BY NAME SELECT * FROM incoming_test_rows")
        finally:
            con.unregister("incoming_test_rows")


def fill_ranking_database(con: duckdb.DuckDBPyConnection, days: tuple[date, ...] = RANKING_DAYS) -> None:
    prices = []
    day = HISTORY_START
    while day <= days[-1]:
        for model in CARDS:
            p = price_row(model, day)
            prices.append({"as_of": day, "model": model, "price_usd": p["price_usd"], "price_kind": p["price_kind"],
                           "price_n": p["price_n"], "price_q1": p["price_q1"], "price_q3": p["price_q3"],
                           "price_as_of": p["price_as_of"], "window_days": 30, "method": "median of window"})
        day += timedelta(days=1)
    insert_dicts(con, "prices_daily", prices)
    for ranking_day in days:
        insert_dicts(con, "ranking_daily", ranking_for(ranking_day))
    fill_sources(con)


def fill_sources(con: duckdb.DuckDBPyConnection) -> None:
    """Runs and a few data rows, so that sources and their freshness can be derived."""
    runs = []
    for run_day, statuses in ((date(2024, 5, 8), {"ebay-browse": "ok", "techpowerup": "ok", "wikipedia": "ok"}),
                              (date(2024, 5, 9), {"ebay-browse": "ok", "techpowerup": "failed", "wikipedia": "ok"})):
        for source, status in statuses.items():
            started = datetime(run_day.year, run_day.month, run_day.day, 6, 0)
            runs.append({"run_id": f"run-{run_day.isoformat()}", "source": source, "stage": "fetch", "as_of": run_day,
                         "replay": False, "started_at": started,
                         "finished_at": started + timedelta(minutes=3), "status": status,
                         "rows": 120 if status == "ok" else None,
                         "error": "HTTP 503 after 4 tries" if status == "failed" else None})
    insert_dicts(con, "runs", runs)
    insert_dicts(con, "listings", [{
        "source": "ebay-browse", "listing_id": "v1|1234|0", "title": "NVIDIA GeForce RTX 3090 24GB Founders Edition",
        "price": 689.0, "shipping": 0.0, "currency": "USD", "total_usd": 689.0, "sold": True,
        "first_seen": datetime(2024, 5, 7, 6, 1), "last_seen": datetime(2024, 5, 9, 6, 2), "status": "sold",
        "model": "GeForce RTX 3090", "match_reason": "exact"}, {
        "source": "hardwareswap", "listing_id": "1cdx9z", "title": "[USA-CA] [H] RTX 3060 12GB [W] PayPal",
        "price": 220.0, "shipping": None, "currency": "USD", "total_usd": 220.0, "sold": False,
        "first_seen": datetime(2024, 5, 2, 18, 0), "last_seen": datetime(2024, 5, 3, 18, 0), "status": "active",
        "model": "GeForce RTX 3060 12 GB", "match_reason": "exact"}])
    insert_dicts(con, "perf", [{
        "model": "GeForce RTX 4090", "precision": "fp16", "source": "lambda-pytorch-2024", "relative_perf": 1.85,
        "method": "measured: geomean of 9 workloads", "reference": REFERENCE_GPU, "measured": True, "workloads": 9,
        "as_of": date(2024, 1, 15), "loaded_at": datetime(2024, 5, 9, 6, 5)}])


_TEMPLATES: dict[str, Path] = {}


def from_template(name: str, build, path: str | Path = ":memory:") -> duckdb.DuckDBPyConnection:
    """A fresh copy of a test warehouse that ``build(path)`` makes once per test process.

    Building one takes about half a second (migrations, sources, rankings, offers) and the fast
    tier asks for one in dozens of tests; copying the file takes milliseconds. Every caller gets
    its own file (``:memory:`` becomes a file in a temporary folder), so a test may write to it."""
    template = _TEMPLATES.get(name)
    if template is None:
        template = _scratch() / f"template-{name}.duckdb"
        con = build(str(template))
        con.execute("CHECKPOINT")
        con.close()
        _TEMPLATES[name] = template
    if str(path) == ":memory:":
        path = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=_scratch())) / "gpuvalue.duckdb"
    shutil.copyfile(template, path)
    return open_test_database(path)


@functools.cache
def _scratch() -> Path:
    """One temporary folder per test process for templates and in-memory stand-ins, removed at exit."""
    root = Path(tempfile.mkdtemp(prefix="gpuvalue-test-warehouses-"))
    atexit.register(shutil.rmtree, root, True)
    return root


def make_ranking_database(path: str | Path = ":memory:") -> duckdb.DuckDBPyConnection:
    return from_template("ranking", _build_ranking_database, path)


def _build_ranking_database(path: str | Path) -> duckdb.DuckDBPyConnection:
    from gpuvalue.flows.stages import register_sources

    con = open_test_database(path)
    register_sources(con)  # as every run does: the registry's description of each source
    fill_ranking_database(con)
    return con
