"""Every SQL file under warehouse/sql runs, through the code that runs it in the pipeline, on a
migrated empty warehouse and on a small seeded one.

Several of these files otherwise run only inside the session's replay run (end to end, not in the
fast tier): the run's artifacts (biggest_movers, listing_freshness), `gpuvalue perf --inference`
(perf_inference_single), `gpuvalue rank` (ranking_filtered). Here each runs in milliseconds, so a
syntax error, a renamed column or a migration that drops a column one of them reads fails the fast
tier. A new file under warehouse/sql fails `test_every_sql_file_runs` until RUNNERS says how the
pipeline runs it.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from contextlib import closing
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conftest_exports import LATEST_DAY, fill_ranking_database
from gpuvalue.flows import daily
from gpuvalue.flows import pipeline as P
from gpuvalue.flows.cli import app
from gpuvalue.flows.settings import Settings
from gpuvalue.models.records import GpuSpec, InferenceFigure
from gpuvalue.warehouse import backfill, load, queries, sql_files
from gpuvalue.warehouse.db import integrity_check, open_database
from test_backfill import END, MIN_COUNT, REF, START, WINDOW, _crafted_history

SQL_DIR = Path(__file__).resolve().parents[2] / "warehouse" / "sql"
SQL_FILES = sorted(p.stem for p in SQL_DIR.glob("*.sql"))
SEEN = datetime(2026, 3, 30, 12, 0)

# name of a warehouse/sql file -> a call of the code that runs it, on the warehouse at that path
RUNNERS: dict[str, Callable[[Path], object]] = {}


def runs(*names: str):
    def register(runner: Callable[[Path], object]) -> Callable[[Path], object]:
        for name in names:
            assert name not in RUNNERS, name
            RUNNERS[name] = runner
        return runner

    return register


def _spec(model: str, bandwidth: float) -> GpuSpec:
    return GpuSpec(model=model, source="techpowerup", fetched_at=SEEN, vendor="NVIDIA", memory_gb=24.0,
                   bandwidth_gb_s=bandwidth, released=True)


@runs("upsert_gpu_specs", "current_gpu_specs")
def _specs(db: Path) -> object:
    with closing(open_database(db)) as con:
        load.load_gpu_specs(con, [_spec("Card A", 936.0), _spec("Card F", 448.0)])
        load.load_gpu_specs(con, [_spec("Card A", 940.0)])  # a new version of one spec
        return [s.model for s in load.current_specs(con)]


def _listing(listing_id: str, day: date, price: float, *, sold: bool) -> dict:
    seen = datetime(day.year, day.month, day.day, 9, 0)
    return {column: None for column in load.LISTING_SCHEMA.names} | {
        "source": "test", "listing_id": listing_id, "title": "RTX Card A 24GB", "price": price, "shipping": 0.0,
        "currency": "USD", "total_usd": price, "condition_class": "used", "buying_option": "FIXED_PRICE",
        "quantity": 1, "sold": sold, "sold_at": seen if sold else None, "first_seen": seen, "last_seen": seen,
        "status": "sold" if sold else "active", "model": "Card A", "match_reason": "test",
    }


@runs("upsert_listings", "refresh_price_observations")
def _listings(db: Path) -> object:
    with closing(open_database(db)) as con:
        # New listings, then the same ones seen again the next day (one of them sold): both paths of the upsert.
        load.load_listings(con, [_listing("new-1", END, 1400.0, sold=False), _listing("new-2", END, 1450.0, sold=False)])
        load.load_listings(con, [_listing("new-1", END + timedelta(days=1), 1390.0, sold=False),
                                 _listing("new-2", END + timedelta(days=1), 1440.0, sold=True)])
        # The observations kept equal to their defining view (the seed's ranking names cards outside its catalog).
        assert [p for p in integrity_check(con) if p.startswith("price observation")] == []
        return con.execute("SELECT count(*) FROM price_observations WHERE listing_id LIKE 'new-%'").fetchone()[0]


@runs("rebuild_price_observations")
def _rebuild(db: Path) -> object:
    with closing(open_database(db)) as con:
        return load.rebuild_price_observations(con)


@runs("prices_daily", "ranking")
def _day(db: Path) -> object:
    with closing(open_database(db)) as con:
        return load.materialize_day(con, END, precision="fp16", reference=REF, window_days=WINDOW, min_count=MIN_COUNT)


@runs("backfill_prices", "backfill_prices_windows", "backfill_prices_resolve", "backfill_prices_fallback")
def _backfill(db: Path) -> object:
    with closing(open_database(db)) as con:
        return backfill.backfill(con, END - timedelta(days=40), END, precision="fp16", reference=REF,
                                 window_days=WINDOW, min_count=MIN_COUNT)


@runs("ranking_filtered")
def _rank(db: Path) -> object:
    with closing(open_database(db, read_only=True)) as con:
        return queries.ranking_rows(con, top=5, min_memory=8, max_price=5000, vendor="nvidia")


@runs("quality_volume_alarms", "quality_match_alarms")
def _alarms(db: Path) -> object:
    with closing(open_database(db)) as con:
        return daily._quality_alarms(con, P.RunSummary(run_id="run-2024-05-09", as_of=LATEST_DAY, replay=False, db=db))


@runs("biggest_movers", "listing_freshness")
def _artifacts(db: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    import prefect.artifacts

    published = []
    monkeypatch.setattr(prefect.artifacts, "create_table_artifact", lambda **kw: published.append(kw))
    monkeypatch.setattr(prefect.artifacts, "create_markdown_artifact", lambda **kw: published.append(kw))
    daily._publish_artifacts(Settings(db=db), P.RunSummary(run_id="r", as_of=LATEST_DAY, replay=False, db=db))
    assert [sorted(kw) for kw in published] == [["description", "key", "table"], ["key", "markdown"]]
    return published[1]["markdown"]


@runs("perf_inference_single")
def _inference(db: Path) -> object:
    res = CliRunner().invoke(app, ["perf", "--inference", "--json", "--db", str(db)])
    assert res.exit_code == 0, res.output
    return res.stdout


@pytest.fixture(scope="module")
def warehouses(tmp_path_factory) -> dict[str, Path]:
    """Two template warehouses, copied for each test: migrated and empty; and seeded with a
    quarter of listings (every branch of the price rule), three ranked days with price moves,
    runs, a benchmark figure and inference figures."""
    folder = tmp_path_factory.mktemp("sql-files")
    empty, seeded = folder / "empty.duckdb", folder / "seeded.duckdb"
    open_database(empty).close()
    with closing(open_database(seeded)) as con:
        _crafted_history(con)
        fill_ranking_database(con)
        load.replace_perf_inference(con, "llamacpp-test", [
            InferenceFigure(model="Card A", source="llamacpp-test", workload="llama3-8b-q4_k_m", phase=phase,
                            tokens_per_s=tps, gpu_count=gpus, as_of=date(2024, 5, 1))
            for phase, tps, gpus in (("text-generation", 111.0, 1), ("prompt-processing", 4000.0, 1),
                                     ("text-generation", 150.0, 2))], SEEN)
        load.materialize_day(con, END - timedelta(days=1), precision="fp16", reference=REF, window_days=WINDOW,
                             min_count=MIN_COUNT)
    return {"empty": empty, "seeded": seeded}


# Read-side queries behind named functions (warehouse/queries.py) and the stages that use them.
@runs("catalog_entries")
def _catalog_entries(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.catalog_entries(con)


@runs("catalog_model_names")
def _catalog_model_names(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.catalog_model_names(con)


@runs("catalog_features")
def _catalog_features(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.catalog_features(con)


@runs("measured_perf_for_fit")
def _measured_for_fit(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.measured_perf_for_fit(con)


@runs("perf_workload_ratios")
def _workload_ratios(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.perf_workload_ratios(con)


@runs("ranked_days")
def _ranked_days(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.ranked_days(con)


@runs("ranking_top")
def _ranking_top(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.ranking_top(con, END - timedelta(days=1), 20)


@runs("delete_spec_rows")
def _delete_specs(db: Path) -> object:
    with closing(open_database(db)) as con:
        queries.delete_source_rows(con, "spec", "techpowerup")
        return con.execute("SELECT count(*) FROM gpu_specs WHERE source = 'techpowerup'").fetchone()[0] == 0


@runs("delete_listing_rows")
def _delete_listings(db: Path) -> object:
    with closing(open_database(db)) as con:
        queries.delete_source_rows(con, "listing", "test")
        return con.execute("SELECT count(*) FROM listings WHERE source = 'test'").fetchone()[0] == 0


@runs("listings_to_rematch", "apply_rematch")
def _rematch(db: Path) -> object:
    import pyarrow as pa

    with closing(open_database(db)) as con:
        rows = queries.listings_to_rematch(con)
        table = pa.table({"source": [r[0] for r in rows], "listing_id": [r[1] for r in rows],
                          "model": [r[5] for r in rows], "match_reason": ["unchanged"] * len(rows)},
                         schema=pa.schema([("source", pa.string()), ("listing_id", pa.string()),
                                           ("model", pa.string()), ("match_reason", pa.string())]))
        queries.apply_rematch(con, table)
        return rows


@runs("upsert_source_catalog", "source_catalog")
def _source_catalog(db: Path) -> object:
    from gpuvalue.flows.stages import register_sources

    with closing(open_database(db)) as con:
        register_sources(con)
        return queries.source_catalog(con)


@runs("coverage_catalog")
def _coverage_catalog(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.coverage_catalog(con)


@runs("quality_price_index_alarms")
def _price_index_alarms(db: Path) -> object:
    from gpuvalue.warehouse.price_index import price_index_alarms

    with closing(open_database(db)) as con:
        return price_index_alarms(con)


@runs("rental_prices_daily")
def _rental_prices(db: Path) -> object:
    from gpuvalue.warehouse.rental import rebuild_rental_prices

    with closing(open_database(db)) as con:
        return rebuild_rental_prices(con)


@runs("rent_ranking")
def _rent_ranking(db: Path) -> object:
    from gpuvalue.warehouse.rental import rent_ranking_rows

    with closing(open_database(db)) as con:
        return rent_ranking_rows(con)


@runs("rent_ranking_provider")
def _rent_ranking_provider(db: Path) -> object:
    from gpuvalue.warehouse.rental import rent_ranking_rows

    with closing(open_database(db)) as con:
        return rent_ranking_rows(con, provider="vast")


@runs("rent_vs_buy")
def _rent_vs_buy(db: Path) -> object:
    from gpuvalue.warehouse.rental import rent_vs_buy_inputs

    with closing(open_database(db)) as con:
        return rent_vs_buy_inputs(con)


@runs("gpu_rows")
def _gpu_rows(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.gpu_rows(con, query="card") + queries.gpu_rows(con, model="Card A")


@runs("perf_relative", "perf_reference_present")
def _perf_relative(db: Path) -> object:
    with closing(open_database(db)) as con:
        present = queries.perf_reference_present(con, precision="fp16", reference=REF)
        rows = queries.perf_relative(con, precision="fp16", reference=REF, everything=True)
        rows += queries.perf_relative(con, precision="fp16", reference=REF, estimate=True, query="card")
        return rows if any(present) else []


@runs("scaling_efficiency")
def _scaling(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.scaling_efficiency(con)


@runs("perf_card_sources", "perf_card_harness_runs")
def _perf_card(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.perf_card_sources(con, "Card A", "fp16") + queries.perf_card_harness_runs(con, "Card A", "fp16")


# Files whose seeded result is empty: the small seed has no rental offers, price index, bandwidths,
# per-workload ratios or multi-GPU rows; these runs still fail on a syntax error or a column that is gone.
QUIET_WHEN_SEEDED_EXTRA = {"quality_price_index_alarms", "rental_prices_daily", "rent_ranking", "rent_ranking_provider",
                           "rent_vs_buy", "catalog_features", "perf_workload_ratios", "scaling_efficiency"}


# The seeded runs are a normal day: no quality alarm (tests/flows/test_quality_alarms.py raises them).
QUIET_WHEN_SEEDED = {"quality_volume_alarms", "quality_match_alarms", *QUIET_WHEN_SEEDED_EXTRA}


def _call(runner: Callable, db: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    return runner(db, monkeypatch) if runner is _artifacts else runner(db)


def test_there_are_sql_files_and_no_runner_without_one():
    assert len(SQL_FILES) >= 16
    assert set(RUNNERS) <= set(SQL_FILES), "RUNNERS names a file warehouse/sql no longer has"


@pytest.mark.parametrize("name", SQL_FILES)
@pytest.mark.parametrize("warehouse", ["empty", "seeded"])
def test_every_sql_file_runs(name, warehouse, warehouses, tmp_path, monkeypatch):
    if name not in RUNNERS:
        pytest.fail(f"warehouse/sql/{name}.sql is run by nothing in this test: add the call that runs it to RUNNERS")
    db = tmp_path / "g.duckdb"
    shutil.copy(warehouses[warehouse], db)
    read = []
    original = sql_files.sql
    monkeypatch.setattr(sql_files, "sql", lambda file: (read.append(file), original(file))[1])

    result = _call(RUNNERS[name], db, monkeypatch)

    if warehouse == "seeded" or name not in ("backfill_prices_windows",):
        # On the empty warehouse the backfill has no window to evaluate, so step 2 never runs.
        assert name in read, f"{RUNNERS[name].__name__} ran without reading warehouse/sql/{name}.sql"
    if warehouse == "seeded" and name not in QUIET_WHEN_SEEDED:
        assert result, f"{name}: the seeded warehouse gave nothing"


def test_the_seeded_results_are_the_ones_the_seed_implies(warehouses, tmp_path, monkeypatch):
    """A few of the seeded results pinned, so that a runner that silently reads nothing is noticed."""
    db = tmp_path / "g.duckdb"
    shutil.copy(warehouses["seeded"], db)
    assert _specs(db) == ["Card A", "Card F"]
    assert _day(db) == 4  # Card A to D; Card E is unreleased
    rows = _rank(db)
    assert [r["model"] for r in rows] and all(r["as_of"] == END for r in rows)
    markdown = _artifacts(db, monkeypatch)
    assert "## Listing freshness" in markdown and "| test | 2187 | 2187 | 2026-03-31 09:00:00 |" in markdown
    assert "## Biggest movers" in markdown
    assert "- Radeon RX 7900 XTX: #10 -> #8 (up 2), $600" in markdown  # its scripted price drop on 2024-05-09
    lines = [line for line in _inference(db).splitlines() if line]
    assert len(lines) == 2  # single-card figures only: the two-card row stays in perf_inference
