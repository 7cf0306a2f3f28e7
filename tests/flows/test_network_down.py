"""A run with no network fails fast, says so in one line per source, and ranks from the data that
ships with gpuvalue.

Every request meets the connect error a machine without DNS gets. Unreachable is not a fault that
passes in seconds: no source is retried (neither by the HTTP client nor by Prefect's task retries),
nothing waits, and the terminal shows one line per failed source and no traceback, while the
Prefect UI's log handler still gets the full failure. A source whose data ships with gpuvalue (the
replay archive's recordings of specs, benchmarks and the price index) and has nothing stored is read
from the shipped data instead, dated as recorded (status ``fallback``); the listing sources fail.
"""

from __future__ import annotations

import time
from datetime import date

import httpx
import pytest

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.http import PoliteClient, is_unreachable
from local_web import recorded_console

# Every default source that fetches (the run reads them all, as a first `gpuvalue run` does), and those
# of them whose data ships in the replay archive: all but the listing sources.
FETCHING = [n for n in registry.default_sources() if registry.get(n).fetch is not None
            and not registry.get(n).reads_embedded(Settings())]
SHIPPED = [n for n in FETCHING if registry.get(n).kind != "listing"]


class NoNetwork:
    """Every request fails to resolve its host; each client's requests are recorded apart."""

    def __init__(self) -> None:
        self.requests: list[list[str]] = []  # per client, in order
        self.sleeps: list[float] = []

    def make_client(self, settings, replay, replay_dir=None) -> PoliteClient:
        mine: list[str] = []
        self.requests.append(mine)

        def refuse(request: httpx.Request) -> httpx.Response:
            mine.append(str(request.url))
            raise httpx.ConnectError("[Errno -3] Temporary failure in name resolution", request=request)

        return PoliteClient(transport=httpx.MockTransport(refuse), min_interval_s=0.0, sleep=self.sleeps.append)


@pytest.fixture
def console(monkeypatch):
    """What Prefect's console handlers print (at INFO, as `gpuvalue run` shows it), after their filters."""
    yield from recorded_console(monkeypatch)


def test_unreachable_hosts_are_told_apart_from_passing_faults():
    request = httpx.Request("GET", "https://example.com/")
    assert is_unreachable(httpx.ConnectError("[Errno -2] Name or service not known", request=request))
    assert is_unreachable(httpx.ConnectError("[Errno 111] Connection refused", request=request))
    assert is_unreachable(httpx.ConnectError("[Errno 101] Network is unreachable", request=request))
    assert not is_unreachable(httpx.ConnectError("[Errno 104] Connection reset by peer", request=request))
    assert not is_unreachable(httpx.ConnectTimeout("timed out", request=request))
    assert not is_unreachable(httpx.ReadError("[Errno -3] Temporary failure in name resolution", request=request))


def test_a_run_without_network_fails_fast_with_one_line_per_source(prefect_harness, tmp_path, monkeypatch, console):
    from gpuvalue.flows import daily  # here, not at the top: the fast tier imports no Prefect

    web = NoNetwork()
    monkeypatch.setattr(P, "make_client", web.make_client)
    monkeypatch.setenv("EBAY_CLIENT_ID", "offline-client-id")
    monkeypatch.setenv("EBAY_CLIENT_SECRET", "offline-client-secret")
    started = time.monotonic()
    summary = daily.daily_flow(as_of=date(2026, 12, 1), replay=False, db=str(tmp_path / "gpuvalue.duckdb"))
    elapsed = time.monotonic() - started

    failed = [name for name, o in summary.outcomes.items() if o.status == "failed"]
    assert sorted(failed) == sorted(set(FETCHING) - set(SHIPPED)), summary.outcomes
    for name in failed:
        assert summary.outcomes[name].error.endswith("host unreachable (not retried)"), summary.outcomes[name].error
        assert summary.outcomes[name].kept == "nothing of it is stored yet"
    # The sources whose data ships with gpuvalue were read from it, and the run ranks from it.
    assert {name for name, o in summary.outcomes.items() if o.status == "fallback"} == set(SHIPPED)
    assert sorted(summary.fallback) == sorted(SHIPPED)
    for name in SHIPPED:
        assert "host unreachable (not retried); read the data shipped with gpuvalue instead (recorded " in \
            summary.fallback[name]
        assert summary.outcomes[name].rows > 0 and "not today's" in summary.outcomes[name].warnings[0]
    assert summary.ranked > 0  # priced by the shipped price index, measured by the shipped benchmarks
    # The exports say so: each shipped source's status is fallback, its data dated as recorded.
    import json

    import jsonschema

    ranking = json.loads((tmp_path / "exports" / "ranking.json").read_text(encoding="utf-8"))
    jsonschema.validate(ranking, json.loads((tmp_path / "exports" / "ranking.schema.json").read_text(encoding="utf-8")))
    listed = {s["name"]: s for s in ranking["sources"]}
    assert listed["lambda"]["status"] == "fallback" and listed["lambda"]["as_of"] < "2026-12-01"
    assert listed["lambda"]["fetched_at"] is None  # never fetched live
    # Nothing was retried and nothing waited: one client per source (no task retry made another),
    # and no client asked for a URL twice.
    assert web.sleeps == []
    assert len(web.requests) == len(FETCHING)
    assert all(len(urls) == len(set(urls)) for urls in web.requests), web.requests
    assert elapsed < 60, elapsed  # the retries' waits alone were over a minute

    printed = console.getvalue()
    assert "Traceback" not in printed, printed
    assert "Retry" not in printed, printed
    lines = [line for line in printed.splitlines() if "failed" in line.lower()]
    for name in FETCHING:
        mine = [line for line in lines if f"'fetch-{name}'" in line or f"source {name} failed" in line]
        assert len(mine) == 1, (name, mine, printed)
        assert f"source {name} failed: " in mine[0] and "host unreachable" in mine[0]
        said = "read the data shipped with gpuvalue instead" if name in SHIPPED else "nothing of it is stored yet"
        assert said in mine[0], mine[0]
