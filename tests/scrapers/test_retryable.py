"""One retry layer: a fetch error says whether asking again may succeed, and the HTTP client is the
layer that asks again (bounded, honouring Retry-After); a refusal is never asked twice."""

from __future__ import annotations

import pickle
import random

import httpx
import pytest

from gpuvalue.scrapers.errors import AccessRefused, FetchError, NotRecordedError, ParseError, RobotsDisallowed
from gpuvalue.scrapers.http import PoliteClient

URL = "https://example.com/data"


def _client(handler, sleeps: list[float], **kwargs) -> PoliteClient:
    def route(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(200, text="User-agent: *\nDisallow: /private\n")
        return handler(request)

    return PoliteClient(transport=httpx.MockTransport(route), min_interval_s=0.0, sleep=sleeps.append,
                        rng=random.Random(1), **kwargs)


def _script(*answers):
    calls: list[str] = []
    steps = list(answers)

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        step = steps.pop(0) if len(steps) > 1 else steps[0]
        if isinstance(step, Exception):
            raise step
        return step

    return handler, calls


@pytest.mark.parametrize("status", [401, 403])
def test_a_refusal_is_not_retryable_and_asked_once(status):
    handler, calls = _script(httpx.Response(status))
    sleeps: list[float] = []
    with pytest.raises(AccessRefused) as err, _client(handler, sleeps) as client:
        client.get(URL, source="t")
    assert err.value.retryable is False and len(calls) == 1 and sleeps == []


def test_a_404_is_not_retryable():
    handler, calls = _script(httpx.Response(404))
    with pytest.raises(FetchError) as err, _client(handler, []) as client:
        client.get(URL, source="t")
    assert err.value.retryable is False and not isinstance(err.value, AccessRefused) and len(calls) == 1


def test_429_waits_as_long_as_retry_after_asks_then_reads():
    handler, calls = _script(httpx.Response(429, headers={"Retry-After": "7"}), httpx.Response(200, text="ok"))
    sleeps: list[float] = []
    with _client(handler, sleeps) as client:
        page = client.get(URL, source="t")
    assert page.body == b"ok" and len(calls) == 2 and sleeps == [7.0]


def test_retry_after_is_bounded():
    handler, _ = _script(httpx.Response(429, headers={"Retry-After": "86400"}), httpx.Response(200, text="ok"))
    sleeps: list[float] = []
    with _client(handler, sleeps, backoff_max_s=30.0) as client:
        client.get(URL, source="t")
    assert sleeps == [30.0]


@pytest.mark.parametrize("answer", [httpx.Response(503), httpx.Response(429),
                                    httpx.ReadTimeout("timed out")])
def test_passing_faults_are_retryable_once_the_client_spent_its_retries(answer):
    handler, calls = _script(answer)
    with pytest.raises(FetchError) as err, _client(handler, [], max_retries=2) as client:
        client.get(URL, source="t")
    assert err.value.retryable is True and len(calls) == 3


def test_unreachable_and_robots_are_not_retryable():
    handler, _ = _script(httpx.ConnectError("[Errno -3] Temporary failure in name resolution"))
    with pytest.raises(FetchError) as err, _client(handler, []) as client:
        client.get(URL, source="t")
    assert err.value.retryable is False
    handler, calls = _script(httpx.Response(200))
    with pytest.raises(RobotsDisallowed) as err, _client(handler, []) as client:
        client.get("https://example.com/private/x", source="t")
    assert err.value.retryable is False and calls == []


def test_retryable_survives_pickling_and_each_kind_has_its_default():
    for error, retryable in [(FetchError("u", "w"), True), (FetchError("u", "w", retryable=False), False),
                             (AccessRefused("u", "sign-in page"), False), (RobotsDisallowed("u", "w"), False),
                             (NotRecordedError("u", "w"), False), (AccessRefused("u", "w", retryable=True), True)]:
        again = pickle.loads(pickle.dumps(error))
        assert (type(again), again.url, again.what, again.retryable) == (type(error), "u", error.what, retryable)
    assert pickle.loads(pickle.dumps(ParseError("s", "u", "w"))).what == "w"
