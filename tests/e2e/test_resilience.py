"""Faults injected under the real daily flow: one source failing never costs another source's rows,
yesterday's ranking, or a silent empty day; failures are recorded and make `gpuvalue run` exit non-zero.

The web is the recorded replay archive behind an httpx.MockTransport that first plays each URL's
scripted faults. Sleeps (backoff, Retry-After) are recorded, never slept; Prefect's task retries
run without delay.
"""

from __future__ import annotations

import random
import shutil
from collections import Counter
from datetime import date
from pathlib import Path

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.cli import app
from gpuvalue.scrapers.sources import ebay_browse as eb
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.sources.lambda_bench import LAMBDA_FILES
from gpuvalue.scrapers.replay import ReplayTransport, packaged_replay_dir

pytestmark = pytest.mark.e2e

YESTERDAY = date(2026, 11, 30)  # the day replay_db ranked
TODAY = date(2026, 12, 1)
TOMORROW = date(2026, 12, 2)
TPU_2020 = "https://www.techpowerup.com/gpu-specs/?released=2020&sort=name"
EMPTY_SEARCH = eb.browse_search_url("NVIDIA GeForce RTX 4090")
LAMBDA_URLS = [f.url for f in LAMBDA_FILES]


class FaultyWeb:
    """The recorded web, with scripted faults played first for chosen URLs and robots.txt per host."""

    def __init__(self) -> None:
        self.replay = ReplayTransport(Archive(packaged_replay_dir()))
        self.faults: dict[str, list] = {}
        self.robots: dict[str, str] = {}
        self.requests: list[str] = []
        self.sleeps: list[float] = []
        self.clients: list[PoliteClient] = []

    def recorded_body(self, url: str) -> bytes:
        return self.replay.archive.read_body(self.replay.recorded[url].sha256)

    def __call__(self, request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        self.requests.append(url)
        steps = self.faults.get(url)
        if steps:
            step = steps.pop(0)
            if isinstance(step, Exception):
                raise step
            return step(request) if callable(step) else step
        if request.url.path == "/robots.txt" and request.url.host in self.robots:
            return httpx.Response(200, text=self.robots[request.url.host])
        return self.replay.handle_request(request)

    def make_client(self, settings, replay, replay_dir=None) -> PoliteClient:
        client = PoliteClient(transport=httpx.MockTransport(self), min_interval_s=0.0, sleep=self.sleeps.append,
                              rng=random.Random(3))
        self.clients.append(client)
        return client

    def count(self, url: str) -> int:
        return Counter(self.requests)[url]


def _truncated(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, headers={"Content-Length": "90000", "Content-Type": "text/plain"}, content=b"gpu,1x")


def _reset(request: httpx.Request) -> Exception:
    return httpx.ReadError("[Errno 104] Connection reset by peer", request=request)


def _timeout(request: httpx.Request) -> Exception:
    return httpx.ReadTimeout("timed out", request=request)


def _raise(make):
    def step(request):
        raise make(request)

    return step


def _snapshot(db: Path) -> dict[str, list]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return {
            "ranking_yesterday": con.execute("SELECT * FROM ranking_daily WHERE as_of = ? ORDER BY rank", [YESTERDAY]).fetchall(),
            "listings": con.execute("SELECT * FROM listings ORDER BY ALL").fetchall(),
            "tpu_specs": con.execute("SELECT * FROM gpu_specs WHERE source = 'techpowerup' ORDER BY ALL").fetchall(),
            "perf_measured": con.execute("SELECT * EXCLUDE (loaded_at) FROM perf WHERE measured ORDER BY ALL").fetchall(),
        }
    finally:
        con.close()


def _runs(db: Path, run_id: str) -> dict[str, tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        rows = con.execute("SELECT source, status, rows, error, as_of FROM runs WHERE run_id = ?", [run_id]).fetchall()
    finally:
        con.close()
    return {r[0]: r[1:] for r in rows}


@pytest.fixture(scope="module")
def faulty_runs(replay_db, tmp_path_factory):
    """Yesterday's replay database, then two live days whose sources meet faults."""
    from gpuvalue.flows import daily  # here, not at the top: the fast tier imports no Prefect

    db = tmp_path_factory.mktemp("faults") / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    web = FaultyWeb()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(P, "make_client", web.make_client)
        mp.setattr(daily, "fetch_task", daily.fetch_task.with_options(retry_delay_seconds=0))
        mp.setenv("EBAY_CLIENT_ID", "resilience-client-id")
        mp.setenv("EBAY_CLIENT_SECRET", "resilience-client-secret")

        # Day 1: every fetched source meets trouble; lambda's is transient and it recovers.
        web.faults = {
            LAMBDA_URLS[0]: [httpx.Response(429, headers={"Retry-After": "7"})],
            LAMBDA_URLS[1]: [httpx.Response(503), httpx.Response(503), httpx.Response(503)],
            LAMBDA_URLS[2]: [_raise(_timeout)],
            LAMBDA_URLS[3]: [_raise(_reset), _truncated],
            TPU_2020: [httpx.Response(200, headers={"Content-Type": "text/html"},
                                      content=web.recorded_body(TPU_2020).replace(b"processors", b"gpulist"))],
            EMPTY_SEARCH: [httpx.Response(200, json={"href": EMPTY_SEARCH, "total": 57, "limit": 100, "offset": 0})],
        }
        web.robots = {site: "User-agent: *\nDisallow: /sch/\n"
                      for site in ("www.ebay.com", "www.ebay.co.uk", "www.ebay.de", "www.ebay.ca", "www.ebay.com.au")}
        before = _snapshot(db)
        day1 = daily.daily_flow(as_of=TODAY, replay=False, db=str(db),
                                sources=["techpowerup", "ebay-browse", "ebay-html", "lambda"], export=False)
        after_day1 = _snapshot(db)
        day1_requests, day1_sleeps = list(web.requests), list(web.sleeps)

        # Day 2, through the CLI: lambda's server keeps failing in every way until the retries are spent.
        web.requests.clear()
        burst = [httpx.Response(503), _raise(_timeout), _raise(_reset), _truncated, httpx.Response(502)]
        web.faults = {LAMBDA_URLS[0]: burst * 10}
        mp.setenv("GPUVALUE_SOURCES", '["lambda"]')  # JSON: the comma form fails in pydantic-settings
        mp.setattr("gpuvalue.flows.cli.cli_app.utc_today", lambda: TOMORROW)  # the scenario's day 2 has come
        cli = CliRunner().invoke(app, ["run", "--db", str(db), "--date", TOMORROW.isoformat()])
        day2_requests = list(web.requests)
        after_day2 = _snapshot(db)
    return {
        "db": db, "before": before, "day1": day1, "after_day1": after_day1, "day1_requests": day1_requests,
        "day1_sleeps": day1_sleeps, "cli": cli, "day2_requests": day2_requests, "after_day2": after_day2,
    }


def test_each_faulty_source_fails_alone_and_is_recorded_with_its_error(faulty_runs):
    day1 = faulty_runs["day1"]
    runs = _runs(faulty_runs["db"], day1.run_id)
    # A robots.txt disallow is the site's answer, not a fault: the source is skipped with the reason.
    assert {s: o.status for s, o in day1.outcomes.items()} == {
        "techpowerup": "failed", "ebay-browse": "failed", "ebay-html": "skipped", "lambda": "ok"}
    assert {s: r[0] for s, r in runs.items()} == {
        "techpowerup": "failed", "ebay-browse": "failed", "ebay-html": "skipped", "lambda": "ok"}
    assert all(r[3] == TODAY for r in runs.values())
    assert "ParseError" in runs["techpowerup"][2] and "no table.processors" in runs["techpowerup"][2]
    assert "robots.txt disallows" in runs["ebay-html"][2]
    assert runs["lambda"][1] > 0 and runs["lambda"][2] is None
    assert sorted(day1.failed) == ["ebay-browse", "techpowerup"]


def test_an_empty_results_page_where_the_site_counts_results_fails_the_source(faulty_runs):
    runs = _runs(faulty_runs["db"], faulty_runs["day1"].run_id)
    status, rows, error, _ = runs["ebay-browse"]
    assert status == "failed" and rows == 0
    assert "total is 57 but there are no itemSummaries: markup changed?" in error


def test_the_other_sources_rows_and_yesterdays_ranking_are_untouched(faulty_runs):
    before, after = faulty_runs["before"], faulty_runs["after_day1"]
    assert after["ranking_yesterday"] == before["ranking_yesterday"]
    assert after["listings"] == before["listings"]  # ebay-browse failed: its listings stay as they were
    assert after["tpu_specs"] == before["tpu_specs"]  # techpowerup failed: no spec closed or opened
    assert after["perf_measured"] == before["perf_measured"]  # lambda reloaded the same figures
    con = duckdb.connect(str(faulty_runs["db"]), read_only=True)
    today = con.execute("SELECT count(*) FROM ranking_daily WHERE as_of = ?", [TODAY]).fetchone()[0]
    con.close()
    assert today == len(before["ranking_yesterday"])  # today still ranks, from the rows that were kept


def test_transient_faults_are_retried_with_backoff_and_retry_after(faulty_runs):
    requests = Counter(faulty_runs["day1_requests"])
    assert [requests[u] for u in LAMBDA_URLS] == [2, 4, 2, 3, 1, 1, 1, 1]  # the last four had no fault
    assert 7.0 in faulty_runs["day1_sleeps"]  # Retry-After: 7 obeyed exactly
    assert len(faulty_runs["day1_sleeps"]) == 1 + 3 + 1 + 2


def test_permanent_answers_are_not_retried(faulty_runs):
    requests = Counter(faulty_runs["day1_requests"])
    assert requests["https://www.ebay.com/robots.txt"] == 1  # disallowed once, not asked again by task retries
    assert not any("ebay.com/sch/" in u for u in requests)
    assert requests[TPU_2020] == 1  # a changed layout is not a transient fault
    assert requests[EMPTY_SEARCH] == 1


def test_cli_exits_non_zero_when_a_source_fails_after_spending_its_retries(faulty_runs):
    res = faulty_runs["cli"]
    assert res.exit_code == 1, res.output
    assert "failed sources:" in res.output and "lambda" in res.output
    requests = Counter(faulty_runs["day2_requests"])
    # 5 attempts in the client (1 + 4 retries), 3 task attempts (1 + 2 Prefect retries).
    assert requests[LAMBDA_URLS[0]] == 15
    assert requests[LAMBDA_URLS[1]] == 0  # the source stops at its first dead file
    con = duckdb.connect(str(faulty_runs["db"]), read_only=True)
    status, error = con.execute("SELECT status, error FROM runs WHERE source = 'lambda' AND as_of = ?", [TOMORROW]).fetchone()
    con.close()
    assert status == "failed" and "after 5 attempts" in error
    # The measured figures from earlier days survive a day whose benchmark fetch failed.
    assert faulty_runs["after_day2"]["perf_measured"] == faulty_runs["before"]["perf_measured"]
    assert faulty_runs["after_day2"]["ranking_yesterday"] == faulty_runs["before"]["ranking_yesterday"]
