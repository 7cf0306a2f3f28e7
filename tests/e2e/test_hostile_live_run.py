"""A live daily run against hostile servers on 127.0.0.1: the ECB's site redirects to an internal
service, RunPod's API answers a byte at a time, vast.ai's answers a `gzip, gzip` bomb, while Lambda's
files answer as recorded. Each hostile source fails in one line within its bounds, stores nothing
(no rates from the internal service, no page in the raw archive), and the run ranks from the rest.

Each request for ``https://<host>/<path>`` goes over a socket to the local server with its host in
the Host header; the deadline and the size limit are settings made small for the test.
"""

from __future__ import annotations

import gzip
import shutil
import threading
import time
from datetime import date
from http.server import ThreadingHTTPServer

import duckdb
import pytest

from gpuvalue.flows import pipeline as P
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.replay import packaged_replay_dir
from local_web import QuietSite, ToLocalServer

pytestmark = pytest.mark.e2e

TODAY = date(2026, 12, 1)
BOMB = gzip.compress(gzip.compress(bytes(48 * 1024 * 1024), compresslevel=9), compresslevel=9)


class HostileWeb(QuietSite):
    seen: list[tuple[str, str]] = []
    recorded: dict[str, bytes] = {}
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:  # noqa: N802
        host = (self.headers.get("Host") or "").split(":")[0]
        type(self).seen.append((host, self.path))
        try:
            if self.path == "/robots.txt":
                return self._send(200, b"User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"})
            if host == "www.ecb.europa.eu":
                return self._send(302, headers={"Location": "https://internal.example:8500/v1/kv/secret"})
            if host == "api.runpod.io":
                self.send_response(200)
                self.send_header("Content-Length", "400")
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                for _ in range(60):  # a byte every 0.1 s: 6 s at most, far past the deadline
                    self.wfile.write(b" ")
                    self.wfile.flush()
                    time.sleep(0.1)
                return None
            if host == "console.vast.ai":
                return self._send(200, BOMB, {"Content-Encoding": "gzip, gzip", "Content-Type": "application/json"})
            body = type(self).recorded.get(f"https://{host}{self.path}".split("?")[0])
            if body is not None:
                return self._send(200, body, {"Content-Type": "text/plain"})
            return self._send(404, b"not here")
        except (BrokenPipeError, ConnectionResetError):
            return None


@pytest.fixture
def hostile_web(monkeypatch):
    from gpuvalue.scrapers.sources.lambda_bench import LAMBDA_FILES

    archive = Archive(packaged_replay_dir())
    recorded = archive.latest_by_url()
    HostileWeb.seen = []
    HostileWeb.recorded = {f.url.split("?")[0]: archive.read_body(recorded[f.url].sha256) for f in LAMBDA_FILES}
    server = ThreadingHTTPServer(("127.0.0.1", 0), HostileWeb)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def make_client(settings, replay, replay_dir=None) -> PoliteClient:
        return PoliteClient(transport=ToLocalServer(server.server_address[1], with_deadline=True), min_interval_s=0.0,
                            sleep=lambda _s: None, request_deadline_s=settings.request_deadline_s,
                            max_body_bytes=int(settings.max_response_mb * 1024 * 1024))

    monkeypatch.setattr(P, "make_client", make_client)
    monkeypatch.setenv("GPUVALUE_REQUEST_DEADLINE_S", "1.5")
    monkeypatch.setenv("GPUVALUE_MAX_RESPONSE_MB", "4")
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def test_hostile_sources_fail_in_one_line_store_nothing_and_the_run_ranks(prefect_harness, replay_db, tmp_path,
                                                                          hostile_web):
    from gpuvalue.flows import daily  # here, not at the top: the fast tier imports no Prefect

    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    con = duckdb.connect(str(db), read_only=True)
    rates_before = con.execute("SELECT count(*), max(rate_date) FROM fx_rates").fetchone()
    offers_before = con.execute("SELECT count(*) FROM rental_offers WHERE source IN ('runpod', 'vastai')").fetchone()
    con.close()
    started = time.monotonic()
    summary = daily.daily_flow(as_of=TODAY, replay=False, db=str(db), sources=["ecb", "runpod", "vastai", "lambda"],
                               export=False)
    took = time.monotonic() - started

    expected = {
        "ecb": "a redirect to another site (internal.example:8500) refused",
        "runpod": "no whole answer within 1.5 s (GPUVALUE_REQUEST_DEADLINE_S)",
        "vastai": "response body larger than 4 MB (GPUVALUE_MAX_RESPONSE_MB)",
    }
    for name, words in expected.items():
        outcome = summary.outcomes[name]
        line = outcome.error or summary.fallback.get(name, "")
        assert words in line and "\n" not in line, (name, line)
    assert not any(host == "internal.example" for host, _ in HostileWeb.seen)  # never asked
    runpod_asks = [path for host, path in HostileWeb.seen if host == "api.runpod.io" and path != "/robots.txt"]
    assert len(runpod_asks) == 1  # a trickle is not retried
    assert summary.outcomes["lambda"].status == "ok" and summary.ranked > 0
    assert took < 120

    archived = {entry.source for entry in Archive(tmp_path / "raw").entries()} if (tmp_path / "raw").exists() else set()
    assert not archived & set(expected), archived  # no page of a hostile source kept
    con = duckdb.connect(str(db), read_only=True)
    try:
        assert con.execute("SELECT count(*), max(rate_date) FROM fx_rates").fetchone() == rates_before
        assert con.execute("SELECT count(*) FROM rental_offers WHERE source IN ('runpod', 'vastai')").fetchone() == (
            offers_before)
    finally:
        con.close()
