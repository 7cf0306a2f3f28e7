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
from gpuvalue.flows import pipeline as P
from gpuvalue.flows import run_report
from gpuvalue.flows.cli import app
from gpuvalue.flows.settings import Settings
from gpuvalue.models.listing_row import row_schema
from gpuvalue.models.records import GpuSpec, InferenceFigure
from gpuvalue.warehouse import backfill, load, queries, sql_files
from gpuvalue.warehouse.db import integrity_check, open_database
from test_backfill import END, MIN_COUNT, REF, WINDOW, _crafted_history

SQL_DIR = Path(__file__).resolve().parents[2] / "warehouse" / "sql"
# A stored mart's build lives in its one file, warehouse/models/marts/<name>.sql, below its CREATE.
MART_BUILDS = sorted(p.stem for p in (SQL_DIR.parent / "models" / "marts").glob("*.sql") if sql_files.mart_build(p.stem))
SQL_FILES = sorted(p.stem for p in SQL_DIR.glob("*.sql")) + MART_BUILDS
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
    return {column: None for column in row_schema().names} | {
        "source": "test", "listing_id": listing_id, "title": "RTX Card A 24GB", "price": price, "shipping": 0.0,
        "currency": "USD", "total_usd": price, "condition_class": "used", "buying_option": "FIXED_PRICE",
        "quantity": 1, "sold": sold, "sold_at": seen if sold else None, "first_seen": seen, "last_seen": seen,
        "status": "sold" if sold else "active", "model": "Card A", "match_reason": "test",
    }


@runs("upsert_listings", "merge_listings", "table_columns", "refresh_price_observations", "incoming_listings_duplicates",
      "incoming_listings_touched")
def _listings(db: Path) -> object:
    with closing(open_database(db)) as con:
        # New listings, then the same ones seen again the next day (one of them sold): both paths of the upsert.
        load.load_listings(con, [_listing("new-1", END, 1400.0, sold=False), _listing("new-2", END, 1450.0, sold=False)])
        load.load_listings(con, [_listing("new-1", END + timedelta(days=1), 1390.0, sold=False),
                                 _listing("new-2", END + timedelta(days=1), 1440.0, sold=True)])
        # The observations kept equal to their defining view (the seed's ranking names cards outside its catalog).
        assert [p for p in integrity_check(con) if p.startswith("price observation")] == []
        return con.execute("SELECT count(*) FROM price_observations WHERE listing_id LIKE 'new-%'").fetchone()[0]


@runs("rebuild_price_observations", "price_observations_count")
def _rebuild(db: Path) -> object:
    with closing(open_database(db)) as con:
        return load.rebuild_price_observations(con)


@runs("prices_daily", "ranking_daily", "materialize_day_reference", "ranking_day_count")
def _day(db: Path) -> object:
    with closing(open_database(db)) as con:
        return load.materialize_day(con, END, precision="fp16", reference=REF, window_days=WINDOW, min_count=MIN_COUNT)


@runs("backfill_prices", "backfill_prices_windows", "backfill_prices_resolve", "backfill_prices_fallback",
      "backfill_anchor_batches", "backfill_prices_written", "backfill_ranking_written")
def _backfill(db: Path) -> object:
    with closing(open_database(db)) as con:
        return backfill.backfill(con, END - timedelta(days=40), END, precision="fp16", reference=REF,
                                 window_days=WINDOW, min_count=MIN_COUNT)


@runs("listings_stored_count", "listings_imported_elsewhere", "listings_condition_counts")
def _stored(db: Path) -> object:
    with closing(open_database(db, read_only=True)) as con:
        return (queries.listings_stored(con, "ebay-browse"), queries.listings_stored(con, "no such source"),
                queries.listings_imported_elsewhere(con, "import:x", ["1234", "v1|1234|0"]),
                queries.listings_by_condition(con, "ebay-browse"))


@runs("ranking_filtered")
def _rank(db: Path) -> object:
    with closing(open_database(db, read_only=True)) as con:
        return queries.ranking_rows(con, top=5, min_memory=8, max_price=5000, vendor="nvidia")


@runs("quality_volume_alarms", "quality_match_alarms")
def _alarms(db: Path) -> object:
    with closing(open_database(db)) as con:
        return run_report.quality_alarms(con, P.RunSummary(run_id="run-2024-05-09", as_of=LATEST_DAY, replay=False, db=db))


@runs("biggest_movers", "listing_freshness")
def _artifacts(db: Path) -> object:
    # What the run publishes as Prefect artifacts (tests/e2e/test_flow_replay.py reads them there).
    top, markdown = run_report.artifact_contents(Settings(db=db), P.RunSummary(run_id="r", as_of=LATEST_DAY,
                                                                                 replay=False, db=db))
    assert isinstance(top, list)
    return markdown


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


@runs("rent_ranking_terms")
def _rent_ranking_terms(db: Path) -> object:
    from gpuvalue.warehouse.rental import rent_ranking_rows

    with closing(open_database(db)) as con:
        # One provider, and the host terms: both run the one ranking over the offers that meet them.
        return [*rent_ranking_rows(con, provider="vast"), *rent_ranking_rows(con, min_reliability=0.99, verified=True)]


@runs("rent_vendor_scores", "provider_score_declare", "provider_scores_declared")
def _rent_vendor_scores(db: Path) -> object:
    from gpuvalue.warehouse.rental import provider_scores, vendor_scores

    with closing(open_database(db)) as con:
        _load_rental_offers(con)
        (declared,) = provider_scores(con)
        return vendor_scores(con, declared)


@runs("rental_host_providers")
def _rental_host_providers(db: Path) -> object:
    from gpuvalue.warehouse.rental import host_terms_providers

    with closing(open_database(db)) as con:
        return host_terms_providers(con) != ([], []) or None


@runs("fx_rates_upsert")
def _fx_rates_upsert(db: Path) -> object:
    from gpuvalue.models.fx import DailyRate
    from gpuvalue.warehouse.fx import load_fx_rates

    with closing(open_database(db)) as con, load.transaction(con):
        return load_fx_rates(con, [DailyRate(date(2026, 7, 6), "EUR", 1.1415, "ecb")], source="ecb")


@runs("fx_rates_all")
def _fx_rates_all(db: Path) -> object:
    from gpuvalue.warehouse.fx import daily_rates

    with closing(open_database(db)) as con:
        return daily_rates(con).currencies() or None


@runs("source_last_fetches")
def _source_last_fetches(db: Path) -> object:
    from gpuvalue.warehouse.source_status import source_fetches

    with closing(open_database(db)) as con:
        return source_fetches(con)


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


@runs("scaling_efficiency", "scaling_spread")
def _scaling(db: Path) -> object:
    with closing(open_database(db)) as con:
        return [queries.scaling_efficiency(con), queries.scaling_efficiency(con, "fp16"),
                queries.scaling_spread(con, "fp16")]


@runs("card_build_facts")
def _card_build_facts(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.card_build_facts(con, [r["model"] for r in queries.gpu_rows(con)] + ["Card Z"])


@runs("new_card_prices_by_model", "recommend_unpriced")
def _recommend_inputs(db: Path) -> object:
    from gpuvalue.warehouse.recommend_inputs import new_card_prices, unpriced_catalog

    with closing(open_database(db)) as con:
        models = [r["model"] for r in queries.gpu_rows(con)] + ["Card Z"]
        return [new_card_prices(con), unpriced_catalog(con, models, as_of=LATEST_DAY, precision="fp16", reference=REF)]


@runs("perf_card_sources", "perf_card_harness_runs")
def _perf_card(db: Path) -> object:
    with closing(open_database(db)) as con:
        return queries.perf_card_sources(con, "Card A", "fp16", "Card A") + queries.perf_card_harness_runs(con, "Card A", "fp16")


# The downloads, the feed and the buyer's page (warehouse/outputs/export.py, feed.py, buyer_page.py, and
# source_dates.py behind all three). On the empty warehouse each stops at "nothing to export"
# (ExportError) after the files it reads first; UNREAD_WHEN_EMPTY names the files it never reaches.
@runs("ranking_latest_day", "ranking_day_rows", "ranking_day_parquet", "ranking_day_reference_gpus")
def _export_all(db: Path) -> object:
    from gpuvalue.warehouse.outputs import export

    with closing(open_database(db)) as con:
        try:
            return export.export_all(con, db.parent / "export")
        except export.ExportError:
            return None


@runs("ranking_day_replay", "ranking_replay_days")
def _export_day(db: Path) -> object:
    from gpuvalue.warehouse.outputs import export
    from gpuvalue.warehouse.source_dates import replayed_days

    with closing(open_database(db)) as con:
        assert not export.ranking_is_replay(con, LATEST_DAY)  # the seed's runs fetched live
        assert LATEST_DAY not in replayed_days(con)
        try:
            return export.resolve_as_of(con, LATEST_DAY)
        except export.ExportError:
            return None


@runs("source_latest_runs", "source_data_freshness", "source_benchmark_tables")
def _sources(db: Path) -> object:
    from gpuvalue.warehouse.source_dates import sources_from_db

    with closing(open_database(db)) as con:
        return sources_from_db(con)


@runs("feed_ranking_days", "feed_price_history")
def _feed(db: Path) -> object:
    from gpuvalue.warehouse.outputs import feed

    with closing(open_database(db)) as con:
        try:
            return feed.export_feed(con, db.parent / "feed.json")
        except feed.ExportError:
            return 0


@runs("report_price_history")
def _report(db: Path) -> object:
    from gpuvalue.models.buyer_view import BuyerView
    from gpuvalue.warehouse.outputs import buyer_page

    with closing(open_database(db)) as con:
        try:  # every card: the default view hides all of the seed's newest day (their support is unknown)
            return buyer_page.page_data(con, view=BuyerView.everything()).history
        except buyer_page.ExportError:
            return []


# Files the empty warehouse never reaches: the backfill has no window to evaluate there, so its step
# 2 never runs, and an export stops at "nothing to export" before reading the day's rows.
UNREAD_WHEN_EMPTY = {"backfill_prices_windows", "ranking_day_rows", "ranking_day_parquet", "ranking_day_reference_gpus",
                     "report_price_history"}


# The loads' own statements (warehouse/load.py).
@runs("incoming_listings_newest")
def _listings_repeated(db: Path) -> object:
    with closing(open_database(db)) as con:
        # A page that shows one listing twice: the newer sighting is the one stored.
        load.load_listings(con, [_listing("twice", END, 1400.0, sold=False),
                                 _listing("twice", END + timedelta(days=1), 1380.0, sold=False)])
        return con.execute("SELECT price FROM listings WHERE listing_id = 'twice'").fetchall()


@runs("catalog_clear", "catalog_insert_gpus", "catalog_insert_conflicts")
def _catalog(db: Path) -> object:
    with closing(open_database(db)) as con:
        load.replace_catalog(con, [{"model": "Card A", "vendor": "NVIDIA", "provenance": {"memory_gb": "test"}}],
                             [{"model": "Card A", "field": "bandwidth_gb_s", "kept_source": "techpowerup",
                               "kept_value": 940.0, "other_source": "wikipedia", "other_value": 936.0,
                               "detected_at": SEEN}])
        return con.execute("SELECT model FROM gpus").fetchall() + con.execute(
            "SELECT model, field FROM spec_conflicts").fetchall()


@runs("perf_interval_delete_source", "perf_workload_delete_source", "perf_workload_insert_incoming",
      "perf_scaling_delete_source", "perf_scaling_insert_incoming")
def _perf_replaced(db: Path) -> object:
    from gpuvalue.models.records import PerfFigure

    with closing(open_database(db)) as con:
        figure = PerfFigure(model="Card A", precision="fp16", relative_perf=1.1, source="bench-test",
                            method="measured: test", reference=REF, measured=True, workloads=1)
        counts = [load.replace_perf(con, "bench-test", [figure], SEEN), load.replace_perf(con, "bench-test", [], SEEN)]
        counts.append(load.replace_perf_workload(con, "bench-test", [
            {"model": "Card A", "precision": "fp16", "source": "bench-test", "workload": "resnet50", "ratio": 1.1}]))
        counts.append(load.replace_scaling(con, "bench-test", [
            {"model": "Card A", "precision": "fp16", "source": "bench-test", "num_gpu": 2, "efficiency": 0.9}]))
        counts.append(load.replace_perf_inference(con, "llamacpp-test", [InferenceFigure(
            model="Card A", source="llamacpp-test", workload="llama3-8b-q4_k_m", phase="text-generation",
            tokens_per_s=100.0)], SEEN))
        left = con.execute("SELECT (SELECT count(*) FROM perf WHERE source = 'bench-test'), "
                           "(SELECT count(*) FROM perf_workload WHERE source = 'bench-test'), "
                           "(SELECT count(*) FROM perf_inference WHERE source = 'llamacpp-test')").fetchone()
        return counts + list(left)


@runs("perf_weighted_evidence", "perf_set_intervals")
def _perf_weighted(db: Path) -> object:
    from gpuvalue.warehouse.perf_weighted import weigh_and_store

    with closing(open_database(db)) as con:
        sigmas = weigh_and_store(con, {}, REF, SEEN)
        return sigmas, con.execute("SELECT count(*) FROM perf_interval").fetchone()[0]


@runs("run_start", "run_set_matched", "run_finish")
def _run_rows(db: Path) -> object:
    with closing(open_database(db)) as con:
        load.start_run(con, "run-test", "ebay-browse", "match", END, False)
        load.set_run_matched(con, "run-test", "ebay-browse", 3)
        load.finish_run(con, "run-test", "ebay-browse", "ok", rows=4)
        return con.execute("SELECT status, rows, matched FROM runs WHERE run_id = 'run-test'").fetchall()


@runs("run_attempt_start", "run_attempt_finish", "run_attempts_interrupted", "run_attempts_recent")
def _run_attempts(db: Path) -> object:
    from gpuvalue.warehouse import run_attempts

    with closing(open_database(db)) as con:
        run_attempts.begin(con, "attempt-a", END, False)  # left running, as a killed run leaves it
        found = run_attempts.begin(con, "attempt-b", END, True)
        run_attempts.finish(con, "attempt-b", "ok")
        return [r["run_id"] for r in found], [(r["run_id"], r["status"]) for r in run_attempts.recent(con, 5, None)]


@runs("run_attempt_note")
def _import_attempts(db: Path) -> object:
    from gpuvalue.warehouse import run_attempts

    with closing(open_database(db)) as con:
        run_attempts.begin_import(con, "import:x@1", END, "import of x.csv as import:x: 0 rows loaded so far")
        run_attempts.import_note(con, "import:x@1", "import of x.csv as import:x: 10 rows loaded so far")
        return con.execute("SELECT status, note FROM run_attempts WHERE run_id = 'import:x@1'").fetchall()


@runs("storage_tables")
def _storage(db: Path) -> object:
    from gpuvalue.warehouse.storage_check import unreadable_tables

    with closing(open_database(db, read_only=True)) as con:
        assert unreadable_tables(con) == []
        return sql_files.rows(con, "storage_tables")


# The warehouse's own statements (warehouse/db.py): every open reads the schema version, and an open
# for writing the storage format; only a new file creates the migration ledger; a file in a storage
# format newer than STORAGE_VERSION is converted when opened for writing.
@runs("schema_version_table_exists", "schema_version_current", "storage_version")
def _open(db: Path) -> object:
    from gpuvalue.warehouse.db import current_version, storage_version

    with closing(open_database(db)) as con:
        return current_version(con), storage_version(con)


@runs("schema_version_create", "schema_version_record")
def _migrate_new(db: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    import inspect

    from gpuvalue.warehouse import db as warehouse_db

    # The migrations themselves, not the copy of this session's migrated warehouse (tests/conftest.py).
    monkeypatch.setattr(warehouse_db, "_connect", inspect.unwrap(warehouse_db._connect))
    with closing(open_database(db.with_name("new.duckdb"))) as con:  # a new file beside the warehouse
        return warehouse_db.current_version(con)


@runs("storage_copy_source", "storage_copy_tables", "storage_copy_views")
def _convert_storage(db: Path) -> object:
    """The warehouse copied into DuckDB's default storage format, as gpuvalue once wrote it; opening
    the copy for writing converts it, checked table by table and view by view."""
    import duckdb

    from gpuvalue.warehouse import db as warehouse_db

    newer = db.with_name("newer.duckdb")
    with closing(duckdb.connect(str(newer))) as con:
        default = warehouse_db.storage_version(con)
        if (not warehouse_db.storage_config() or warehouse_db._version_tuple(default)
                <= warehouse_db._version_tuple(warehouse_db.STORAGE_VERSION)):
            pytest.skip(f"this DuckDB ({duckdb.__version__}) writes {default} by default: nothing to convert")
        con.execute(f"ATTACH '{str(db).replace(chr(39), chr(39) * 2)}' AS seed_copy (READ_ONLY)")
        con.execute("COPY FROM DATABASE seed_copy TO newer")
    with closing(open_database(newer)) as con:
        converted = warehouse_db.storage_version(con)
        assert converted == f"{warehouse_db.STORAGE_VERSION}+"
        return converted


@runs("model_table_columns", "model_table_keys", "model_views", "model_macros")
def _model_drift(db: Path) -> object:
    from gpuvalue.warehouse import layers

    with closing(open_database(db)) as con:
        assert layers.drift(con) == []
        return layers.catalog(con)["table"]


# Rental offers, the rental downloads, the price index, harness figures and the estimate's stored
# errors (warehouse/rental.py, rental_export.py, price_index.py, harness.py, estimate_cv.py): the seed
# has none of them, so each runner loads a few first, as the pipeline's stages do.
def _load_rental_offers(con) -> tuple[int, str]:
    from gpuvalue.models.rental import ProviderScore, RentalOffer
    from gpuvalue.warehouse.rental import load_rental_offers

    offer = RentalOffer(source="cloud-test", provider="vast", instance_type="1x-a", gpu_name="RTX Card A",
                        model="Card A", match_reason="test", gpu_count=1, usd_per_hour=0.30, usd_per_gpu_hour=0.30,
                        spot_usd_per_hour=0.20, spot_usd_per_gpu_hour=0.20, as_of=END, extras={"speed": 12.5})
    score = ProviderScore(provider="vast", extra="speed", field="test_speed", header="test score",
                          meaning="the test cloud's own speed", caveat="a made-up figure")
    return load_rental_offers(con, [offer], SEEN, source="cloud-test", score=score)


@runs("rental_providers")
def _rental_load(db: Path) -> object:
    from gpuvalue.warehouse.rental import rental_providers

    with closing(open_database(db)) as con:
        _load_rental_offers(con)
        _load_rental_offers(con)  # a re-load of the date replaces its rows
        assert con.execute("SELECT count(*) FROM rental_offers").fetchone()[0] == 1
        return rental_providers(con)


@runs("rental_ranking_export", "rental_prices_daily_count")
def _rental_export(db: Path) -> object:
    from gpuvalue.warehouse.outputs.rental_export import export_rental

    with closing(open_database(db)) as con:
        _load_rental_offers(con)
        return export_rental(con, db.parent / "rental-export")


@runs("price_index_latest_by_model")
def _price_index(db: Path) -> object:
    from gpuvalue.models.price_index import PriceIndexPoint
    from gpuvalue.warehouse.price_index import load_price_index, price_index_latest

    with closing(open_database(db)) as con:
        load_price_index(con, [PriceIndexPoint(source="index-test", gpu_name="RTX Card A", model="Card A",
                                               match_reason="test", month=date(2026, 2, 1), avg_sold_usd=1400.0,
                                               quantity_sold=12, published=date(2026, 3, 1), table="t.csv")], SEEN)
        return price_index_latest(con)


@runs("harness_figures_stored", "harness_stored_names",
      "harness_other_measured_perf", "harness_other_measured_ratios", "harness_catalog_vendors")
def _harness(db: Path) -> object:
    from gpuvalue.models.harness import HarnessFigure
    from gpuvalue.warehouse.harness import combine_and_store, load_harness, stored_harness_figures

    with closing(open_database(db)) as con:
        load_harness(con, "harness-test", [
            HarnessFigure(harness="harness-test", device=model, model=model, workload="resnet50", mode="train",
                          precision="fp16", metric="ms_per_iter", value=ms, batch_size=12, batch_basis="stated",
                          framework="pytorch", run=f"{model}-1", cuda="12.1")
            for model, ms in ((REF, 40.0), ("Card A", 30.0))], SEEN)
        combine_and_store(con, SEEN, REF, benchmark_sources=["harness-test"])
        return stored_harness_figures(con)


@runs("perf_estimate_cv_store", "perf_estimate_cv_fill_form", "perf_estimate_cv_known", "perf_estimate_cv_shipped",
      "perf_estimate_cv_fill_group_errors")
def _estimate_cv(db: Path) -> object:
    from gpuvalue.models.perf.error_groups import GroupError
    from gpuvalue.warehouse import estimate_cv

    with closing(open_database(db)) as con:
        estimate_cv.store_cv_error(con, "digest-test", "fp16", "v-test", 5, 0.07, SEEN)
        estimate_cv.fill_form(con, "digest-test", "form-test")
        known = estimate_cv.known_cv_error(con, "digest-test")
        assert known is not None and known.stored and known.form == "form-test"
        errors = {"GeForce": GroupError("GeForce", 0.06, 13)}
        estimate_cv.fill_group_errors(con, "digest-test", errors)
        known = estimate_cv.known_cv_error(con, "digest-test")
        assert known is not None and known.group_errors == errors
        assert estimate_cv.write_shipped_cv_errors(con, db.with_name("perf_estimate_cv.json")) >= 1
        return known


# Files whose seeded result is empty: the small seed has no rental offers, price index, bandwidths,
# per-workload ratios or multi-GPU rows; these runs still fail on a syntax error or a column that is gone.
QUIET_WHEN_SEEDED_EXTRA = {"quality_price_index_alarms", "rental_prices_daily", "rent_ranking", "rent_ranking_terms",
                           "rent_vendor_scores", "rental_host_providers", "fx_rates_all",
                           "rent_vs_buy", "catalog_features", "perf_workload_ratios", "scaling_efficiency",
                           "scaling_spread"}


# The seeded runs are a normal day: no quality alarm (tests/flows/test_quality_alarms.py raises them).
QUIET_WHEN_SEEDED = {"quality_volume_alarms", "quality_match_alarms", *QUIET_WHEN_SEEDED_EXTRA}


def _call(runner: Callable, db: Path, monkeypatch: pytest.MonkeyPatch) -> object:
    return runner(db, monkeypatch) if runner is _migrate_new else runner(db)


def test_there_are_sql_files_and_no_runner_without_one():
    assert len(SQL_FILES) >= 16
    assert set(RUNNERS) <= set(SQL_FILES), "RUNNERS names a file warehouse/sql no longer has"


@pytest.fixture(scope="module")
def outcomes(warehouses, tmp_path_factory) -> Callable[[Callable, str], tuple[list[str], object]]:
    """Each runner run once on each warehouse (a copy of it): the files it read and its result.

    A runner serves several files (the backfill reads seven); they share its one run, as they
    share it in the pipeline. A runner that fails fails every test of its files."""
    done: dict[tuple[str, str], tuple[list[str], object]] = {}

    def outcome(runner: Callable, warehouse: str) -> tuple[list[str], object]:
        key = (runner.__name__, warehouse)
        if key not in done:
            db = tmp_path_factory.mktemp(f"{runner.__name__.strip('_')}-{warehouse}") / "g.duckdb"
            shutil.copy(warehouses[warehouse], db)
            read: list[str] = []
            original, original_build = sql_files.sql, sql_files.mart_build
            with pytest.MonkeyPatch.context() as monkeypatch:
                monkeypatch.setattr(sql_files, "sql", lambda file: (read.append(file), original(file))[1])
                monkeypatch.setattr(sql_files, "mart_build", lambda mart: (read.append(mart), original_build(mart))[1])
                done[key] = (read, _call(runner, db, monkeypatch))
        return done[key]

    return outcome


@pytest.mark.parametrize("name", SQL_FILES)
@pytest.mark.parametrize("warehouse", ["empty", "seeded"])
def test_every_sql_file_runs(name, warehouse, outcomes):
    if name not in RUNNERS:
        pytest.fail(f"warehouse/sql/{name}.sql is run by nothing in this test: add the call that runs it to RUNNERS")

    read, result = outcomes(RUNNERS[name], warehouse)

    if warehouse == "seeded" or name not in UNREAD_WHEN_EMPTY:
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
    markdown = _artifacts(db)
    assert "## Listing freshness" in markdown and "| test | 2187 | 2187 | 2026-03-31 09:00:00 |" in markdown
    assert "## Biggest movers" in markdown
    assert "- Radeon RX 7900 XTX: #10 -> #8 (up 2), $600" in markdown  # its scripted price drop on 2024-05-09
    lines = [line for line in _inference(db).splitlines() if line]
    assert len(lines) == 2  # single-card figures only: the two-card row stays in perf_inference
