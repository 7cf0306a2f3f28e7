"""PoliteClient's manners: robots.txt, Crawl-delay, conditional requests, redirects, redaction.

Faults (retries, timeouts, truncation, threads) are in test_fault_injection.py.
"""

from __future__ import annotations

import hashlib
import logging
import random
from datetime import UTC, datetime

import httpx
import pytest
from fake_clock import FakeTime
from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.errors import FetchError
from gpuvalue.scrapers.http import (
    DEFAULT_USER_AGENT,
    HttpPage,
    PoliteClient,
    RobotsDisallowed,
    RobotsUnavailable,
    redact_form,
    redact_headers,
    redact_url,
    retry_after_seconds,
)
from gpuvalue.scrapers.robots import (
    RobotsPolicy,
    origin_of,
    policy_from_response,
    product_token,
)

NOW = datetime(2026, 7, 1, 12, 0, 0, tzinfo=UTC)
TPU = "https://www.techpowerup.com"
SPECS = f"{TPU}/gpu-specs/?released=2023&sort=name"

TPU_ROBOTS = b"""\
# robots.txt for the GPU database
User-agent: *
Disallow: /forums/search/
Disallow: /gpu-specs/compare/
Crawl-delay: 4

User-agent: BadBot
Disallow: /
"""




class Site:
    """A fake web: fixed answers per URL (a Response, or a callable taking the request), logging every request."""

    def __init__(self, answers: dict[str, object]) -> None:
        self.answers = answers
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        answer = self.answers.get(str(request.url))
        if answer is None:
            return httpx.Response(404)
        if callable(answer):
            return answer(request)
        if isinstance(answer, Exception):
            raise answer
        return answer

    def urls(self) -> list[str]:
        return [str(request.url) for request in self.requests]


def make_client(site: Site, fake: FakeTime | None = None, **options) -> PoliteClient:
    fake = fake or FakeTime(100.0)
    settings = dict(
        transport=httpx.MockTransport(site),
        sleep=fake.sleep,
        clock=fake.clock,
        now=lambda: NOW,
        rng=random.Random(1),
        max_retries=1,
    )
    settings.update(options)
    return PoliteClient(**settings)


def in_turn(*responses: httpx.Response):
    remaining = iter(responses)
    return lambda request: next(remaining)


def html(body: bytes, **headers: str) -> httpx.Response:
    return httpx.Response(200, content=body, headers={"Content-Type": "text/html", **headers})


# -- robots.txt --------------------------------------------------------------------------------


def test_disallowed_url_is_never_requested_and_raises_robots_disallowed(caplog):
    compare = f"{TPU}/gpu-specs/compare/?ids=1,2"
    site = Site({f"{TPU}/robots.txt": httpx.Response(200, content=TPU_ROBOTS), compare: html(b"x")})
    with caplog.at_level(logging.WARNING), make_client(site) as client:
        with pytest.raises(RobotsDisallowed) as raised:
            client.get(compare, source="techpowerup")

    assert isinstance(raised.value, FetchError)
    assert site.urls() == [f"{TPU}/robots.txt"]
    assert "robots.txt" in raised.value.what
    assert any("robots.txt forbids" in message and compare in message for message in caplog.messages)
    assert client.stats["robots_skips"] == 1
    assert client.stats["per_host"]["www.techpowerup.com"]["robots_skips"] == 1


def test_robots_is_fetched_once_per_host_with_our_user_agent_and_crawl_delay_spaces_requests():
    pages = [f"{TPU}/gpu-specs/?released={year}&sort=name" for year in (2016, 2020, 2022)]
    answers: dict[str, object] = {f"{TPU}/robots.txt": httpx.Response(200, content=TPU_ROBOTS)}
    answers.update({url: html(url.encode()) for url in pages})
    site = Site(answers)
    fake = FakeTime(100.0)
    with make_client(site, fake, min_interval_s=1.0) as client:
        bodies = [client.get(url, source="techpowerup").body for url in pages]

    assert bodies == [url.encode() for url in pages]
    assert site.urls() == [f"{TPU}/robots.txt", *pages]
    assert {request.headers["user-agent"] for request in site.requests} == {DEFAULT_USER_AGENT}
    # Crawl-delay 4 s beats our 1 s minimum, from the first page after robots.txt on.
    assert fake.sleeps == [4.0, 4.0, 4.0]


def test_our_interval_wins_when_it_is_longer_than_the_crawl_delay():
    site = Site({f"{TPU}/robots.txt": httpx.Response(200, content=TPU_ROBOTS), SPECS: html(b"x")})
    fake = FakeTime(100.0)
    with make_client(site, fake, min_interval_s=10.0) as client:
        client.get(SPECS, source="techpowerup")
    assert fake.sleeps == [10.0]


def test_group_for_our_user_agent_is_obeyed_over_the_wildcard_group():
    robots = b"User-agent: *\nDisallow: /private/\n\nUser-agent: gpuvalue\nDisallow: /gpu-specs/\n"
    site = Site({f"{TPU}/robots.txt": httpx.Response(200, content=robots), SPECS: html(b"x")})
    with make_client(site) as client:
        with pytest.raises(RobotsDisallowed):
            client.get(SPECS, source="techpowerup")
    assert SPECS not in site.urls()


def test_robots_404_allows_everything():
    site = Site({SPECS: html(b"specs")})  # robots.txt answers 404
    with make_client(site) as client:
        page = client.get(SPECS, source="techpowerup")
    assert page.body == b"specs"
    assert site.urls() == [f"{TPU}/robots.txt", SPECS]


@pytest.mark.parametrize("status", [401, 403])
def test_robots_401_403_disallow_the_whole_site(status):
    site = Site({f"{TPU}/robots.txt": httpx.Response(status), SPECS: html(b"specs")})
    with make_client(site) as client:
        with pytest.raises(RobotsDisallowed, match=f"HTTP {status}"):
            client.get(SPECS, source="techpowerup")
        with pytest.raises(RobotsDisallowed):
            client.get(f"{TPU}/", source="techpowerup")
    assert site.urls() == [f"{TPU}/robots.txt"]  # cached for the client's life: asked once


@pytest.mark.parametrize(
    "fault", [httpx.Response(503), httpx.Response(429), httpx.ReadTimeout("timed out")], ids=["503", "429", "timeout"]
)
def test_robots_unavailable_is_a_temporary_disallow_retried_on_the_next_call(fault):
    site = Site({f"{TPU}/robots.txt": fault, SPECS: html(b"specs")})
    with make_client(site) as client:
        with pytest.raises(RobotsUnavailable) as raised:
            client.get(SPECS, source="techpowerup")
        assert isinstance(raised.value, FetchError)
        assert SPECS not in site.urls()
        assert site.urls() == [f"{TPU}/robots.txt"] * 2  # one retry

        site.answers[f"{TPU}/robots.txt"] = httpx.Response(200, content=b"User-agent: *\nDisallow:\n")
        assert client.get(SPECS, source="techpowerup").body == b"specs"


def test_robots_exempt_api_hosts_and_disabled_robots_skip_the_robots_fetch():
    api = "https://api.ebay.com/buy/browse/v1/item_summary/search?q=rtx+3090"
    site = Site({api: httpx.Response(200, json={"total": 0}), SPECS: html(b"specs")})
    with make_client(site) as client:
        client.get(api, source="ebay-browse")
    with make_client(site, obey_robots=False) as client:
        client.get(SPECS, source="techpowerup")
    assert site.urls() == [api, SPECS]


def test_post_form_is_not_subject_to_robots():
    token_url = "https://www.reddit.com/api/v1/access_token"
    site = Site(
        {
            "https://www.reddit.com/robots.txt": httpx.Response(200, content=b"User-agent: *\nDisallow: /\n"),
            token_url: httpx.Response(200, json={"access_token": "t", "expires_in": 3600}),
        }
    )
    with make_client(site) as client:
        page = client.post_form(token_url, source="reddit-oauth", data={"grant_type": "client_credentials"})
    assert page.status == 200
    assert site.urls() == [token_url]
    assert site.requests[0].content == b"grant_type=client_credentials"


def test_redirects_are_followed_and_each_hop_is_checked_against_its_robots():
    start = "http://techpowerup.com/gpu-specs/"
    final = f"{TPU}/gpu-specs/"
    site = Site(
        {
            start: httpx.Response(301, headers={"Location": final}),
            f"{TPU}/robots.txt": httpx.Response(200, content=TPU_ROBOTS),
            final: html(b"database"),
        }
    )
    with make_client(site) as client:
        page = client.get(start, source="techpowerup")
    assert site.urls() == ["http://techpowerup.com/robots.txt", start, f"{TPU}/robots.txt", final]
    assert (page.url, page.final_url, page.status, page.body) == (start, final, 200, b"database")


def test_credentials_are_not_carried_across_a_redirect_to_another_site():
    start = "https://api.ebay.com/buy/browse/v1/item/v1|1|0"
    elsewhere = "https://cdn.example.net/item.json"
    site = Site({start: httpx.Response(302, headers={"Location": elsewhere}), elsewhere: httpx.Response(200, json={})})
    with make_client(site, obey_robots=False, redirect_hosts=("example.net",)) as client:
        client.get(start, source="ebay-browse", headers={"Authorization": "Bearer t0k", "Accept-Language": "en-US"})
    assert [request.headers.get("authorization") for request in site.requests] == ["Bearer t0k", None]
    assert site.requests[1].headers["accept-language"] == "en-US"


def test_redirect_into_a_disallowed_path_is_not_followed():
    start = f"{TPU}/old-compare"
    site = Site(
        {
            f"{TPU}/robots.txt": httpx.Response(200, content=TPU_ROBOTS),
            start: httpx.Response(302, headers={"Location": "/gpu-specs/compare/?ids=1"}),
        }
    )
    with make_client(site) as client:
        with pytest.raises(RobotsDisallowed):
            client.get(start, source="techpowerup")
    assert site.urls() == [f"{TPU}/robots.txt", start]


def test_endless_redirects_fail():
    loop = f"{TPU}/loop"
    site = Site({loop: httpx.Response(302, headers={"Location": loop})})
    with make_client(site, obey_robots=False) as client:
        with pytest.raises(FetchError, match="more than 5 redirects"):
            client.get(loop, source="techpowerup")
    assert len(site.requests) == 6


# -- robots.txt parsing ------------------------------------------------------------------------


def test_policy_wildcard_disallow_and_fractional_crawl_delay_are_read_as_written():
    robots = b"User-agent: *\nDisallow: /*?_nkw=\nDisallow: /*.pdf$\nAllow: /\nCrawl-delay: 0.5\n"
    policy = policy_from_response("https://www.ebay.com", 200, robots)
    assert isinstance(policy, RobotsPolicy)
    verdicts = {
        url: policy.allows(url, DEFAULT_USER_AGENT)
        for url in (
            "https://www.ebay.com/sch/i.html?_nkw=rtx+3090",
            "https://www.ebay.com/itm/123456789012",
            "https://www.ebay.com/help/manual.pdf",
            "https://www.ebay.com/help/manual.pdf?download=1",
        )
    }
    assert verdicts == {
        "https://www.ebay.com/sch/i.html?_nkw=rtx+3090": False,
        "https://www.ebay.com/itm/123456789012": True,
        "https://www.ebay.com/help/manual.pdf": False,
        "https://www.ebay.com/help/manual.pdf?download=1": True,
    }
    assert policy.min_interval_s(DEFAULT_USER_AGENT) == 0.5


def test_policy_request_rate_becomes_an_interval():
    policy = policy_from_response("https://example.org", 200, b"User-agent: *\nRequest-rate: 1/10\nCrawl-delay: 2\n")
    assert policy is not None and policy.min_interval_s(DEFAULT_USER_AGENT) == 10.0


@pytest.mark.parametrize(
    ("status", "expected"),
    [(404, "allow_all"), (410, "allow_all"), (401, "disallow_all"), (403, "disallow_all"), (429, None), (500, None)],
)
def test_policy_from_status(status, expected):
    policy = policy_from_response("https://example.org", status, b"")
    if expected is None:
        assert policy is None
    else:
        assert getattr(policy, expected) is True


def test_origin_and_product_token():
    assert origin_of("https://www.ebay.com:443/sch/i.html?x=1") == "https://www.ebay.com"
    assert origin_of("http://localhost:8080/a") == "http://localhost:8080"
    assert product_token(DEFAULT_USER_AGENT) == "gpuvalue"


# -- conditional requests ----------------------------------------------------------------------


def test_etag_304_serves_the_cached_body_and_counts_a_cache_hit(tmp_path):
    body = b"<html>" + "GeForce RTX 4090 — 24 GB".encode() + b"</html>"
    seen_conditions: list[tuple[str | None, str | None]] = []

    def origin_server(request: httpx.Request) -> httpx.Response:
        seen_conditions.append((request.headers.get("if-none-match"), request.headers.get("if-modified-since")))
        if request.headers.get("if-none-match") == '"v1"':
            return httpx.Response(304, headers={"ETag": '"v1"'})
        return html(body, ETag='"v1"', **{"Last-Modified": "Tue, 30 Jun 2026 08:00:00 GMT"})

    site = Site({SPECS: origin_server})
    with make_client(site, obey_robots=False, cache_dir=tmp_path / "http") as client:
        first = client.get(SPECS, source="techpowerup")
    with make_client(site, obey_robots=False, cache_dir=tmp_path / "http") as client:  # the next daily run
        second = client.get(SPECS, source="techpowerup")
        stats = client.stats

    assert seen_conditions == [(None, None), ('"v1"', "Tue, 30 Jun 2026 08:00:00 GMT")]
    expected = dict(
        source="techpowerup",
        url=SPECS,
        status=200,
        fetched_at=NOW,
        sha256=hashlib.sha256(body).hexdigest(),
        body=body,
        content_type="text/html",
        final_url=None,
    )
    validators = {"etag": '"v1"', "last-modified": "Tue, 30 Jun 2026 08:00:00 GMT", "content-type": "text/html"}
    assert first.model_dump() == {
        **expected,
        "from_cache": False,
        "response_headers": {**validators, "content-length": str(len(body))},
    }
    assert second.model_dump() == {**first.model_dump(), "from_cache": True}  # the stored response's headers
    assert stats["cache_hits"] == 1 and stats["per_host"]["www.techpowerup.com"]["cache_hits"] == 1


def test_changed_page_replaces_the_cached_copy_and_no_validators_means_no_conditions(tmp_path):
    versions = iter([html(b"old", ETag='"a"'), html(b"new", ETag='"b"'), html(b"plain")])
    seen: list[str | None] = []

    def origin_server(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers.get("if-none-match"))
        if request.headers.get("if-none-match") == '"b"':
            return httpx.Response(304)
        return next(versions)

    site = Site({SPECS: origin_server})
    with make_client(site, obey_robots=False, cache_dir=tmp_path) as client:
        bodies = [client.get(SPECS, source="techpowerup") for _ in range(3)]
    assert [(page.body, page.from_cache) for page in bodies] == [(b"old", False), (b"new", False), (b"new", True)]
    assert seen == [None, '"a"', '"b"']

    site.answers[SPECS] = lambda request: seen.append(request.headers.get("if-none-match")) or html(b"plain")
    with make_client(site, obey_robots=False, cache_dir=tmp_path) as client:
        client.get(SPECS, source="techpowerup")  # 200 without validators: cache entry dropped
        client.get(SPECS, source="techpowerup")
    assert seen[-2:] == ['"b"', None]


def test_an_unreadable_cache_file_is_set_aside_and_costs_one_full_fetch(tmp_path):
    site = Site({SPECS: html(b"fresh", ETag='"e"')})
    with make_client(site, obey_robots=False, cache_dir=tmp_path) as client:
        client.get(SPECS, source="techpowerup")
    for cache_file in tmp_path.glob("responses.sqlite*"):
        cache_file.write_bytes(b"garbage" * 1000)
    with make_client(site, obey_robots=False, cache_dir=tmp_path) as client:
        page = client.get(SPECS, source="techpowerup")
    assert "if-none-match" not in site.requests[-1].headers
    assert (page.body, page.from_cache) == (b"fresh", False)
    assert (tmp_path / "responses.sqlite.damaged").exists()
    with make_client(site, obey_robots=False, cache_dir=tmp_path) as client:  # the new cache file works
        client.get(SPECS, source="techpowerup")
    assert site.requests[-1].headers["if-none-match"] == '"e"'


# -- credentials -------------------------------------------------------------------------------


def test_credentials_never_reach_logs_errors_or_pages(caplog, tmp_path):
    token_url = "https://api.ebay.com/identity/v1/oauth2/token"
    search = "https://api.ebay.com/buy/browse/v1/item_summary/search?q=rtx+3090"
    secret, bearer = "s3cr3t-client-value", "v^1.1#i^1#bearer-token-value"
    site = Site(
        {
            token_url: httpx.Response(200, json={"access_token": "new-token-xyz", "expires_in": 7200}),
            search: in_turn(httpx.Response(503), httpx.Response(401)),
        }
    )
    with caplog.at_level(logging.DEBUG), make_client(site, cache_dir=tmp_path) as client:
        token_page = client.post_form(
            token_url,
            source="ebay-oauth",
            data={"grant_type": "client_credentials", "client_secret": secret},
            headers={"Authorization": "Basic Y2xpZW50OnNlY3JldA=="},
        )
        with pytest.raises(FetchError) as raised:
            client.get(search, source="ebay-browse", headers={"Authorization": f"Bearer {bearer}"})

    # The credentials did go out on the wire...
    assert site.requests[0].headers["authorization"] == "Basic Y2xpZW50OnNlY3JldA=="
    assert secret.encode() in site.requests[0].content
    assert site.requests[1].headers["authorization"] == f"Bearer {bearer}"
    # ...and nowhere else.
    text_seen = "\n".join(caplog.messages) + str(raised.value) + repr(raised.value) + token_page.model_dump_json()
    for leaked in (secret, bearer, "Y2xpZW50OnNlY3JldA=="):
        assert leaked not in text_seen
        assert all(leaked.encode() not in path.read_bytes() for path in tmp_path.iterdir())
    assert any("client_secret': '[REDACTED]'" in message for message in caplog.messages)
    assert any("'Authorization': 'Bearer [REDACTED]'" in message for message in caplog.messages)


def test_redaction_helpers():
    assert redact_headers(
        {"Authorization": "Bearer abc.def", "X-EBAY-C-MARKETPLACE-ID": "EBAY_US", "Cookie": "s=1", "X-Api-Key": "k"}
    ) == {
        "Authorization": "Bearer [REDACTED]",
        "X-EBAY-C-MARKETPLACE-ID": "EBAY_US",
        "Cookie": "[REDACTED]",
        "X-Api-Key": "[REDACTED]",
    }
    assert redact_form(
        {"grant_type": "refresh_token", "refresh_token": "r", "client_id": "app", "client_secret": "s", "scope": "x"}
    ) == {
        "grant_type": "refresh_token",
        "refresh_token": "[REDACTED]",
        "client_id": "app",
        "client_secret": "[REDACTED]",
        "scope": "x",
    }
    assert redact_url("https://user:pw@example.org/a?access_token=t&q=rtx") == (
        "https://[REDACTED]@example.org/a?access_token=[REDACTED]&q=rtx"
    )
    assert redact_url(SPECS) == SPECS


def test_retry_after_parsing():
    assert retry_after_seconds("120", now=NOW) == 120.0
    assert retry_after_seconds("Wed, 01 Jul 2026 12:00:30 GMT", now=NOW) == 30.0
    assert retry_after_seconds("Wed, 01 Jul 2026 11:00:00 GMT", now=NOW) == 0.0
    assert retry_after_seconds("soon", now=NOW) is None
    assert retry_after_seconds(None, now=NOW) is None


# -- pages, stats, progress ----------------------------------------------------------------------


def test_fetched_page_is_a_whole_record():
    body = b"<feed>hardwareswap</feed>"
    feed = httpx.Response(
        200,
        content=body,
        headers={"Content-Type": "application/atom+xml", "Set-Cookie": "session_tracker=abc", "ETag": '"f1"'},
    )
    site = Site({"https://www.reddit.com/r/hardwareswap/new/.rss": feed})
    with make_client(site, obey_robots=False) as client:
        page = client.get("https://www.reddit.com/r/hardwareswap/new/.rss", source="hardwareswap")
    assert isinstance(page, FetchedPage) and isinstance(page, HttpPage)
    assert page.model_dump() == {
        "source": "hardwareswap",
        "url": "https://www.reddit.com/r/hardwareswap/new/.rss",
        "status": 200,
        "fetched_at": NOW,
        "sha256": hashlib.sha256(body).hexdigest(),
        "body": body,
        "content_type": "application/atom+xml",
        "from_cache": False,
        "final_url": None,
        "response_headers": {"content-type": "application/atom+xml", "etag": '"f1"', "content-length": str(len(body))},
    }
    assert page.fetched_at.tzinfo is not None and page.fetched_at.utcoffset().total_seconds() == 0


def test_pages_and_errors_in_one_run_are_counted_per_host():
    urls = [f"{TPU}/a", f"{TPU}/gpu-specs/compare/x", f"{TPU}/missing", f"{TPU}/b"]
    site = Site(
        {f"{TPU}/robots.txt": httpx.Response(200, content=TPU_ROBOTS), urls[0]: html(b"a"), urls[3]: html(b"b")}
    )
    results: list[HttpPage | FetchError] = []
    with make_client(site) as client:
        for url in urls:
            try:
                results.append(client.get(url, source="techpowerup"))
            except FetchError as exc:
                results.append(exc)
        stats = client.stats

    assert [type(result).__name__ for result in results] == ["HttpPage", "RobotsDisallowed", "FetchError", "HttpPage"]
    assert [result.body for result in results if isinstance(result, FetchedPage)] == [b"a", b"b"]
    assert stats["requests"] == 4  # robots.txt + three pages; the disallowed one never sent
    assert stats["per_host"]["www.techpowerup.com"] == {
        "requests": 4,
        "retries": 0,
        "robots_skips": 1,
        "cache_hits": 0,
        "failures": 1,
    }
