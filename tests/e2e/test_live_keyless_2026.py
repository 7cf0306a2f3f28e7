"""A keyless live run on the web of December 2026, served by a local server on 127.0.0.1: eBay answers
every search with its JavaScript bot challenge ("Pardon our interruption"), Reddit's robots.txt
disallows everything, and GitHub serves GPU Poet's monthly market reports and FSDL's rental table as
recorded. The run names the two refusals in one line each and ranks from the reports and the rentals.
"""

from __future__ import annotations

import shutil
import threading
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import duckdb
import pytest

from gpuvalue.flows import pipeline as P
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.replay import packaged_replay_dir
from local_web import ToLocalServer, recorded_console
from gpuvalue.scrapers.sources import gpupoet_market_reports as reports

pytestmark = pytest.mark.e2e

TODAY = date(2026, 12, 7)
CHALLENGE = (b"<!DOCTYPE html><html lang=\"en\"><head><title>Pardon Our Interruption...</title></head><body>"
             b"<h1>Pardon Our Interruption</h1><p>As you were browsing something about your browser made us think "
             b"you were a bot.</p><script src=\"/splashui/challenge/js\"></script></body></html>")


class Web2026(BaseHTTPRequestHandler):
    seen: list[tuple[str, str]] = []
    recorded: dict[str, bytes] = {}

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes = b"", content_type: str = "text/plain") -> None:
        self.send_response(status)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Type", content_type)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        host = (self.headers.get("Host") or "").split(":")[0]
        type(self).seen.append((host, self.path))
        if self.path == "/robots.txt":
            rules = b"User-agent: *\nDisallow: /\n" if host.endswith("reddit.com") else b"User-agent: *\nAllow: /\n"
            return self._send(200, rules)
        if ".ebay." in host:
            return self._send(200, CHALLENGE, "text/html; charset=utf-8")
        body = type(self).recorded.get(f"https://{host}{self.path}")
        if body is not None:
            return self._send(200, body)
        return self._send(404, b"not here")


@pytest.fixture
def console(monkeypatch):
    """What Prefect's console handlers print, after their filters."""
    yield from recorded_console(monkeypatch)


@pytest.fixture
def web_2026(monkeypatch):
    archive = Archive(packaged_replay_dir())
    Web2026.seen = []
    Web2026.recorded = {url: archive.read_body(entry.sha256) for url, entry in archive.latest_by_url().items()
                        if entry.source in (reports.NAME, "fsdl-cloud-gpus")}
    server = ThreadingHTTPServer(("127.0.0.1", 0), Web2026)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    def make_client(settings, replay, replay_dir=None) -> PoliteClient:
        return PoliteClient(transport=ToLocalServer(server.server_address[1]), min_interval_s=0.0, sleep=lambda s: None)

    monkeypatch.setattr(P, "make_client", make_client)
    monkeypatch.setenv("GPUVALUE_HARDWARESWAP_SUBREDDITS", "hardwareswap,CanadianHardwareSwap")
    for key in ("REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET", "EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET"):
        monkeypatch.delenv(key, raising=False)
    try:
        yield
    finally:
        server.shutdown()
        server.server_close()


def test_a_keyless_run_names_both_refusals_and_ranks_from_the_reports_and_rentals(prefect_harness, replay_db, tmp_path,
                                                                                  web_2026, console):
    from gpuvalue.flows import daily  # here, not at the top: the fast tier imports no Prefect

    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    con = duckdb.connect(str(db))
    con.execute("DELETE FROM price_index_monthly WHERE source = ?", [reports.NAME])  # the live run reads them again
    con.close()
    summary = daily.daily_flow(as_of=TODAY, replay=False, db=str(db),
                               sources=["ebay-html", "hardwareswap", reports.NAME, "fsdl-cloud-gpus"], export=False)

    ebay, reddit = summary.outcomes["ebay-html"], summary.outcomes["hardwareswap"]
    assert ebay.status == "failed" and "\n" not in ebay.error
    assert "answered every search with a bot challenge, not a result list" in ebay.error
    assert "EBAY_CLIENT_ID and EBAY_CLIENT_SECRET" in ebay.error
    assert reddit.status == "failed" and "\n" not in reddit.error
    assert "robots.txt of www.reddit.com disallows r/hardwareswap, r/CanadianHardwareSwap" in reddit.error
    assert "REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET" in reddit.error
    assert not any(h == "www.reddit.com" and p != "/robots.txt" for h, p in Web2026.seen)  # robots.txt obeyed
    assert summary.outcomes[reports.NAME].status == "ok" and summary.outcomes[reports.NAME].rows > 100
    assert summary.outcomes["fsdl-cloud-gpus"].status == "ok"

    printed = console.getvalue()
    assert "Traceback" not in printed
    for name, words in (("ebay-html", "bot challenge"), ("hardwareswap", "robots.txt of www.reddit.com")):
        [line] = [line for line in printed.splitlines() if f"source {name} failed" in line]
        assert words in line

    con = duckdb.connect(str(db), read_only=True)
    try:
        ranked = dict(con.execute("SELECT model, price_usd FROM ranking_daily WHERE as_of = ? AND price_source = ?",
                                  [TODAY, reports.NAME]).fetchall())
        rentals = con.execute("SELECT count(*) FROM rental_offers WHERE source = 'fsdl-cloud-gpus'").fetchone()[0]
    finally:
        con.close()
    assert ranked["GeForce RTX 5090"] == 4795.0 and ranked["GeForce RTX 3090"] == 1207.0
    assert rentals > 0
