"""PoliteClient against a hostile server: every fault is injected by an httpx.MockTransport.

Time is fake (sleep advances a fake clock), so the backoff schedules are asserted exactly
and the whole file runs in milliseconds.
"""

from __future__ import annotations

import random
import threading
import time
from collections import Counter
from datetime import UTC, datetime

import httpx
import pytest
from fake_clock import FakeTime
from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.errors import FetchError
from gpuvalue.scrapers.http import PoliteClient

PAGE = "https://www.techpowerup.com/gpu-specs/?released=2023&sort=name"
NOW = datetime(2026, 7, 1, 12, 0, 0, tzinfo=UTC)




class ScriptedServer:
    """Answers each URL with its scripted steps in order: an httpx.Response, or an exception to raise."""

    def __init__(self, script: dict[str, list]) -> None:
        self.script = {url: list(steps) for url, steps in script.items()}
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        steps = self.script.get(str(request.url))
        assert steps, f"unexpected request {request.method} {request.url}"
        step = steps.pop(0)
        if isinstance(step, Exception):
            raise step
        return step

    def urls(self) -> list[str]:
        return [str(request.url) for request in self.requests]


def make_client(server: ScriptedServer, fake: FakeTime, **options) -> PoliteClient:
    settings = dict(
        transport=httpx.MockTransport(server),
        obey_robots=False,
        min_interval_s=0.0,
        sleep=fake.sleep,
        clock=fake.clock,
        now=lambda: NOW,
        rng=random.Random(7),
    )
    settings.update(options)
    return PoliteClient(**settings)


def ok(body: bytes = b"<html>specs</html>") -> httpx.Response:
    return httpx.Response(200, content=body, headers={"Content-Type": "text/html; charset=utf-8"})


def test_429_with_retry_after_seconds_sleeps_exactly_that_long_then_succeeds():
    server = ScriptedServer(
        {PAGE: [httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(429, headers={"Retry-After": "3"}), ok()]}
    )
    fake = FakeTime(5000.0)
    with make_client(server, fake) as client:
        page = client.get(PAGE, source="techpowerup")

    assert fake.sleeps == [7.0, 3.0]
    assert server.urls() == [PAGE, PAGE, PAGE]
    assert (page.status, page.body) == (200, b"<html>specs</html>")
    assert client.stats["requests"] == 3 and client.stats["retries"] == 2


def test_retry_after_as_http_date_is_read_against_the_server_date_and_capped():
    server = ScriptedServer(
        {
            PAGE: [
                httpx.Response(
                    503,
                    headers={"Retry-After": "Wed, 01 Jul 2026 09:00:45 GMT", "Date": "Wed, 01 Jul 2026 09:00:00 GMT"},
                ),
                httpx.Response(429, headers={"Retry-After": "3600"}),
                ok(),
            ]
        }
    )
    fake = FakeTime(5000.0)
    with make_client(server, fake, backoff_max_s=60.0) as client:
        page = client.get(PAGE, source="techpowerup")

    # 45 s by the server's own clock (our clock says 12:00, which would give 0); 3600 capped to 60.
    assert fake.sleeps == [45.0, 60.0]
    assert page.status == 200


def test_503_burst_then_200_backs_off_with_full_jitter_within_exponential_ceilings():
    server = ScriptedServer({PAGE: [httpx.Response(503)] * 4 + [ok()]})
    fake = FakeTime(5000.0)
    with make_client(server, fake, backoff_base_s=2.0, backoff_max_s=10.0, max_retries=4) as client:
        page = client.get(PAGE, source="techpowerup")

    assert page.status == 200 and len(server.requests) == 5
    ceilings = [2.0, 4.0, 8.0, 10.0]  # base * 2**n, capped at backoff_max_s
    assert len(fake.sleeps) == 4
    assert all(0.0 <= slept <= ceiling for slept, ceiling in zip(fake.sleeps, ceilings, strict=True))
    expected = random.Random(7)
    assert fake.sleeps == [expected.uniform(0.0, ceiling) for ceiling in ceilings]


@pytest.mark.parametrize(
    "fault",
    [
        httpx.ReadTimeout("timed out"),
        httpx.ConnectTimeout("timed out"),
        httpx.RemoteProtocolError("peer closed connection without sending complete message body"),
        httpx.ConnectError("[Errno 104] Connection reset by peer"),
        httpx.ReadError("[Errno 104] Connection reset by peer"),
    ],
    ids=lambda fault: type(fault).__name__,
)
def test_connection_faults_are_retried_then_the_page_comes_through(fault):
    server = ScriptedServer({PAGE: [fault, fault, ok(b"third time lucky")]})
    fake = FakeTime(5000.0)
    with make_client(server, fake) as client:
        page = client.get(PAGE, source="techpowerup")

    assert page.body == b"third time lucky"
    assert len(server.requests) == 3
    assert len(fake.sleeps) == 2
    assert client.stats["retries"] == 2 and client.stats["failures"] == 0


def test_retries_exhausted_raises_fetch_error_naming_url_last_problem_and_attempts():
    server = ScriptedServer({PAGE: [httpx.Response(502)] * 3 + [httpx.ReadTimeout("timed out")]})
    fake = FakeTime(5000.0)
    with make_client(server, fake, max_retries=3) as client:
        with pytest.raises(FetchError) as raised:
            client.get(PAGE, source="techpowerup")

    error = raised.value
    assert error.url == PAGE
    assert error.what == "ReadTimeout: timed out after 4 attempts"
    assert PAGE in str(error)
    assert len(server.requests) == 4 and len(fake.sleeps) == 3
    assert client.stats["failures"] == 1


def test_last_status_is_named_when_retries_end_on_a_status():
    server = ScriptedServer({PAGE: [httpx.Response(504)] * 2})
    with make_client(server, FakeTime(5000.0), max_retries=1) as client:
        with pytest.raises(FetchError, match=r"HTTP 504 Gateway Timeout after 2 attempts"):
            client.get(PAGE, source="techpowerup")


def test_truncated_body_is_retried_and_the_complete_one_returned():
    full = b"<table>" + b"<tr><td>GeForce RTX 4090</td></tr>" * 50 + b"</table>"
    cut = httpx.Response(200, headers={"Content-Length": str(len(full))}, content=full[:100])
    server = ScriptedServer({PAGE: [cut, ok(full)]})
    fake = FakeTime(5000.0)
    with make_client(server, fake) as client:
        page = client.get(PAGE, source="techpowerup")

    assert page.body == full
    assert len(server.requests) == 2 and client.stats["retries"] == 1


def test_always_truncated_body_fails_saying_so():
    cut = httpx.Response(200, headers={"Content-Length": "5000"}, content=b"<html><body><tab")
    server = ScriptedServer({PAGE: [cut, cut]})
    with make_client(server, FakeTime(5000.0), max_retries=1) as client:
        with pytest.raises(FetchError) as raised:
            client.get(PAGE, source="techpowerup")
    assert raised.value.what == "truncated body (16 of 5000 bytes) after 2 attempts"


@pytest.mark.parametrize("status", [400, 401, 403, 404, 410])
def test_client_errors_other_than_429_fail_at_once_without_retry(status):
    server = ScriptedServer({PAGE: [httpx.Response(status)]})
    fake = FakeTime(5000.0)
    with make_client(server, fake) as client:
        with pytest.raises(FetchError, match="not retried") as raised:
            client.get(PAGE, source="techpowerup")

    assert f"HTTP {status}" in raised.value.what
    assert len(server.requests) == 1
    assert fake.sleeps == []
    assert client.stats["retries"] == 0


def test_non_retryable_transport_errors_propagate_unretried():
    server = ScriptedServer({PAGE: [httpx.UnsupportedProtocol("no")]})
    with make_client(server, FakeTime(5000.0)) as client:
        with pytest.raises(httpx.UnsupportedProtocol):
            client.get(PAGE, source="techpowerup")
    assert len(server.requests) == 1


def test_min_interval_spaces_request_starts_to_one_host_but_not_across_hosts():
    other = "https://www.ebay.com/sch/i.html?_nkw=rtx+3090"
    server = ScriptedServer({PAGE: [ok(), ok()], other: [ok()]})
    fake = FakeTime(5000.0)
    with make_client(server, fake, min_interval_s=2.5) as client:
        client.get(PAGE, source="techpowerup")
        client.get(other, source="ebay-html")  # another host: no wait
        fake.t += 1.0  # the caller spends a second parsing
        client.get(PAGE, source="techpowerup")

    assert fake.sleeps == [1.5]


def _tracking_handler(delay_s: float, barrier: threading.Barrier | None = None):
    in_flight: Counter[str] = Counter()
    peak: Counter[str] = Counter()
    lock = threading.Lock()

    def handler(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        with lock:
            in_flight[host] += 1
            peak[host] = max(peak[host], in_flight[host])
        try:
            if barrier is not None:
                barrier.wait(timeout=5)
            time.sleep(delay_s)
        finally:
            with lock:
                in_flight[host] -= 1
        return httpx.Response(200, content=request.url.path.encode())

    return handler, peak


def test_threads_on_one_host_are_serialized():
    handler, peak = _tracking_handler(delay_s=0.02)
    client = PoliteClient(transport=httpx.MockTransport(handler), obey_robots=False, min_interval_s=0.0)
    urls = [f"https://www.techpowerup.com/gpu-specs/p{i}" for i in range(6)]
    results: dict[str, FetchedPage] = {}

    def fetch(url: str) -> None:
        results[url] = client.get(url, source="techpowerup")

    threads = [threading.Thread(target=fetch, args=(url,)) for url in urls]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    client.close()

    assert peak["www.techpowerup.com"] == 1
    assert {url: page.body for url, page in results.items()} == {url: httpx.URL(url).path.encode() for url in urls}


def test_threads_on_different_hosts_run_concurrently():
    hosts = ["www.techpowerup.com", "www.ebay.com", "en.wikipedia.org"]
    # Every handler waits until all three requests are in flight: it only passes if they overlap.
    barrier = threading.Barrier(len(hosts))
    handler, peak = _tracking_handler(delay_s=0.0, barrier=barrier)
    client = PoliteClient(transport=httpx.MockTransport(handler), obey_robots=False, min_interval_s=0.0)
    errors: list[BaseException] = []

    def fetch(host: str) -> None:
        try:
            client.get(f"https://{host}/page", source="test")
        except BaseException as exc:  # noqa: BLE001 - surfaced below
            errors.append(exc)

    threads = [threading.Thread(target=fetch, args=(host,)) for host in hosts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    client.close()

    assert errors == []
    assert not barrier.broken
    assert all(peak[host] == 1 for host in hosts)
