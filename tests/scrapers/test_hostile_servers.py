"""The HTTP client against hostile servers on 127.0.0.1: every request within its deadline (headers
and body, robots.txt too), every body within its size across every content-encoding layer, and
redirects that stay home. Each attack fails its request in one line, stores nothing, and leaves the
client able to fetch from a well-behaved server right after.

Deadlines are a second or less here (the setting), so the file runs in a few seconds; every server
loop is bounded in count.
"""

from __future__ import annotations

import gzip
import socket
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from gpuvalue.scrapers.bounded import MB
from gpuvalue.scrapers.errors import FetchError
from gpuvalue.scrapers.fetch_bounds import decoded_chunks
from gpuvalue.scrapers.http import PoliteClient, RobotsUnavailable
from gpuvalue.scrapers.redirects import RedirectRefused, redirect_refusal

TRICKLE_S = 0.15  # one byte this often (the attack used 20 s; the deadline below scales with it)
DEADLINE_S = 0.8


class Hostile(BaseHTTPRequestHandler):
    """Answers by path; ``asked`` keeps (Host, path) of every request."""

    asked: list[tuple[str, str]] = []
    routes: dict[str, Callable[[BaseHTTPRequestHandler], None]] = {}
    protocol_version = "HTTP/1.1"

    def log_message(self, *args) -> None:  # quiet
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        type(self).asked.append((self.headers.get("Host", ""), self.path))
        route = type(self).routes.get(self.path.split("?")[0])
        if route is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        try:
            route(self)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client hung up, as it should


def send(handler: BaseHTTPRequestHandler, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
    handler.send_response(status)
    for name, value in {"Content-Length": str(len(body)), **(headers or {})}.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(body)


def trickle(handler: BaseHTTPRequestHandler, data: bytes, limit: int = 200) -> None:
    for byte in data[:limit]:
        handler.wfile.write(bytes([byte]))
        handler.wfile.flush()
        time.sleep(TRICKLE_S)


def trickle_headers(handler: BaseHTTPRequestHandler) -> None:
    trickle(handler, b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-Padding: " + b"a" * 150 + b"\r\n\r\n")


def trickle_body(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Length", "150")
    handler.end_headers()
    handler.wfile.flush()
    trickle(handler, b"x" * 150)


def fine(handler: BaseHTTPRequestHandler) -> None:
    send(handler, 200, b"the real page", {"Content-Type": "text/plain"})


@pytest.fixture
def server() -> Iterator[str]:
    Hostile.asked, Hostile.routes = [], {"/fine": fine, "/robots.txt": lambda h: send(h, 404)}
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Hostile)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        httpd.server_close()


def client(**options) -> PoliteClient:
    settings = dict(min_interval_s=0.0, max_retries=2, sleep=lambda _s: None, request_deadline_s=DEADLINE_S,
                    obey_robots=False)
    settings.update(options)
    return PoliteClient(**settings)


# ---- a total deadline per request --------------------------------------------------------------


@pytest.mark.parametrize("attack", [trickle_headers, trickle_body])
def test_a_server_trickling_a_byte_at_a_time_fails_within_the_deadline_and_is_not_retried(server, attack):
    Hostile.routes["/slow"] = attack
    with client() as session:
        started = time.monotonic()
        with pytest.raises(FetchError) as failure:
            session.get(f"{server}/slow", source="ecb")
        took = time.monotonic() - started
        assert took < DEADLINE_S + 0.6, took  # within the deadline (and one trickled byte)
        line = str(failure.value)
        assert "\n" not in line and f"no whole answer within {DEADLINE_S:g} s (GPUVALUE_REQUEST_DEADLINE_S)" in line
        assert failure.value.retryable is False
        assert [path for _, path in Hostile.asked] == ["/slow"]  # asked once: a trickle is no passing fault
        assert session.get(f"{server}/fine", source="ecb").body == b"the real page"  # the client goes on


def test_a_trickled_robots_txt_fails_the_site_within_the_deadline(server):
    Hostile.routes["/robots.txt"] = trickle_body
    with client(obey_robots=True) as session:
        started = time.monotonic()
        with pytest.raises(RobotsUnavailable) as failure:
            session.get(f"{server}/fine", source="ecb")
        assert time.monotonic() - started < DEADLINE_S + 0.6
    assert "robots.txt unavailable" in str(failure.value) and "GPUVALUE_REQUEST_DEADLINE_S" in str(failure.value)
    assert [path for _, path in Hostile.asked] == ["/robots.txt"]  # the page itself never asked


def test_the_deadline_is_a_setting_of_the_live_client(monkeypatch, tmp_path):
    from gpuvalue.flows.pipeline import make_client
    from gpuvalue.flows.settings import Settings

    monkeypatch.setenv("GPUVALUE_REQUEST_DEADLINE_S", "7.5")
    monkeypatch.setenv("GPUVALUE_HTTP_CACHE_MAX_AGE_H", "2")
    settings = Settings(db=tmp_path / "g.duckdb")
    with make_client(settings, replay=False) as live:
        assert live.request_deadline_s == 7.5
        assert live._cache is not None and live._cache.max_age_s == 7200


# ---- the decoded size, across every content-encoding layer -------------------------------------


def _double_gzip_bomb(megabytes: int) -> bytes:
    inner = gzip.compress(bytes(megabytes * MB), compresslevel=9)
    return gzip.compress(inner, compresslevel=9)


def test_a_gzip_gzip_bomb_is_refused_under_the_size_limit(server):
    bomb = _double_gzip_bomb(64)  # a few kB on the wire, 64 MB decoded; the limit is 2 MB
    assert len(bomb) < 200 * 1024
    Hostile.routes["/bomb"] = lambda h: send(h, 200, bomb, {"Content-Encoding": "gzip, gzip",
                                                              "Content-Type": "application/json"})
    tracemalloc.start()
    try:
        with client(max_body_bytes=2 * MB) as session:
            with pytest.raises(FetchError) as failure:
                session.get(f"{server}/bomb", source="vastai")
            peak = tracemalloc.get_traced_memory()[1]
            assert session.get(f"{server}/fine", source="vastai").body == b"the real page"
    finally:
        tracemalloc.stop()
    assert "response body larger than 2 MB (GPUVALUE_MAX_RESPONSE_MB)" in str(failure.value)
    assert "\n" not in str(failure.value) and failure.value.retryable is False
    assert peak < 12 * MB, f"peak {peak / MB:.1f} MB while refusing a 64 MB body"  # the limit and a few pieces


def test_every_layer_is_undone_and_counted():
    page = b'{"offers": []}' * 1000
    wire = gzip.compress(gzip.compress(page))
    assert b"".join(decoded_chunks([wire[i:i + 100] for i in range(0, len(wire), 100)], ["gzip", "gzip"],
                                   len(page))) == page
    with pytest.raises(ValueError, match="larger than"):
        b"".join(decoded_chunks([wire], ["gzip", "gzip"], len(page) - 1))
    with pytest.raises(ValueError, match="'br' encoding"):
        b"".join(decoded_chunks([b"x"], ["br"], 100))


def test_a_body_in_an_encoding_never_asked_for_fails_in_one_line(server):
    Hostile.routes["/br"] = lambda h: send(h, 200, b"\x1b\x00\x00", {"Content-Encoding": "br"})
    with client() as session:
        with pytest.raises(FetchError, match=r"'br' encoding, which was not asked for \(not retried\)"):
            session.get(f"{server}/br", source="vastai")
    assert Hostile.asked and all("br" in path for _, path in Hostile.asked)  # once, not retried


# ---- redirects stay home -----------------------------------------------------------------------


@pytest.fixture
def elsewhere() -> Iterator[tuple[str, list[str]]]:
    """A second server: an "internal" service no source has any business reading."""
    seen: list[str] = []

    class Internal(BaseHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

        def do_GET(self) -> None:  # noqa: N802
            seen.append(self.path)
            send(self, 200, b'{"EUR": 0.000001}', {"Content-Type": "application/json"})

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Internal)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{httpd.server_address[1]}", seen
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.mark.parametrize("where", ["another site", "another port"])
def test_a_redirect_away_from_home_fails_in_one_line_and_is_never_followed(server, elsewhere, where):
    address, seen = elsewhere
    port = address.split(":")[1]
    target = f"http://localhost:{port}/v1/kv/secret" if where == "another site" else f"http://{address}/v1/kv/secret"
    Hostile.routes["/rates"] = lambda h: send(h, 302, headers={"Location": target})
    with client(redirect_hosts=("ecb.europa.eu",)) as session:
        with pytest.raises(RedirectRefused) as failure:
            session.get(f"{server}/rates", source="ecb")
        assert session.get(f"{server}/fine", source="ecb").body == b"the real page"
    line = str(failure.value)
    assert "\n" not in line and failure.value.retryable is False
    assert f"a redirect to {where}" in line and "/v1/kv/secret" in line
    assert seen == []  # the internal service was never asked


def test_a_redirect_within_the_host_is_followed(server):
    Hostile.routes["/old"] = lambda h: send(h, 301, headers={"Location": "/fine"})
    with client() as session:
        page = session.get(f"{server}/old", source="ecb")
    assert (page.body, page.final_url) == (b"the real page", f"{server}/fine")


def test_the_rules_of_home():
    home = frozenset({"ebay.com"})
    asked = "https://www.ebay.com/sch/i.html"
    assert redirect_refusal(asked, asked, "https://signin.ebay.com/ws/x", home) is None  # a declared domain
    assert redirect_refusal(asked, asked, "https://ebay.com/x", frozenset()) is None  # the www twin
    assert redirect_refusal("http://techpowerup.com/", "http://techpowerup.com/", "https://www.techpowerup.com/",
                            frozenset()) is None  # up to https, to the twin
    assert redirect_refusal(asked, asked, "http://www.ebay.com/x", home) == "a redirect from https to http"
    assert redirect_refusal(asked, asked, "https://ebay.com.evil.example/x", home) == (
        "a redirect to another site (ebay.com.evil.example)")
    assert redirect_refusal(asked, asked, "https://notebay.com/x", home) == "a redirect to another site (notebay.com)"
    assert redirect_refusal(asked, asked, "https://www.ebay.com:8500/x", home) == (
        "a redirect to another port (www.ebay.com:8500)")
    assert redirect_refusal(asked, asked, "file:///etc/passwd", home) == "a redirect to a file URL"


def test_https_to_http_is_refused_even_on_the_same_host():
    site = {"https://www.ecb.europa.eu/rates.xml": httpx.Response(302, headers={"Location": "http://www.ecb.europa.eu/r"})}

    def answer(request: httpx.Request) -> httpx.Response:
        return site.get(str(request.url), httpx.Response(200, content=b"plain text rates"))

    with client(transport=httpx.MockTransport(answer)) as session:
        with pytest.raises(RedirectRefused, match="a redirect from https to http refused"):
            session.get("https://www.ecb.europa.eu/rates.xml", source="ecb")


def test_every_source_that_fetches_is_at_home_on_its_own_sample_url():
    from gpuvalue.scrapers import registry

    declaring = [src for src in registry.all_sources().values() if src.hosts]
    assert len(declaring) >= 7
    for src in declaring:
        if src.sample_url:
            host = httpx.URL(src.sample_url).host
            assert any(host == d or host.endswith("." + d) for d in src.hosts), src.name


def test_a_socket_is_free_after_a_deadline(server):
    """The trickling connection is closed, not left to the pool: the server sees its client hang up."""
    Hostile.routes["/slow"] = trickle_body
    with client() as session:
        with pytest.raises(FetchError):
            session.get(f"{server}/slow", source="ecb")
    probe = socket.create_connection(("127.0.0.1", int(server.rsplit(":", 1)[1])), timeout=2)
    probe.close()


def test_the_live_probe_follows_redirects_only_as_a_run_does():
    from gpuvalue.flows.settings import Settings
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.probe import probe

    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        if request.url.host == "api.runpod.io":
            return httpx.Response(302, headers={"Location": "https://internal.example:8500/v1/kv/secret"})
        return httpx.Response(200, json={"secret": "kept"})

    with httpx.Client(transport=httpx.MockTransport(answer)) as session:
        result = probe(session, registry.get("runpod"), Settings())
    assert not result.ok and result.line.startswith("a redirect to another site (internal.example:8500): not followed")
    assert not any("internal.example" in url for url in asked)
