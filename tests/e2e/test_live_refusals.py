"""The daily flow against the web of late 2026, served by a local server on 127.0.0.1: every eBay
search answers with a sign-in page, Reddit's JSON with 403 and its Atom feeds with 429 before they
answer. The run finishes, names each refusal in one line, ranks from the rest, and the refused
source's stored prices keep ranking with their age.

Each request the client makes for ``https://<host>/<path>`` goes over a socket to the local server
with its host in the Host header; robots.txt allows everything there. Lambda's files are answered
with their recorded bodies (the replay archive), as a site that still works.
"""

from __future__ import annotations

import shutil
import threading
from collections import Counter
from datetime import UTC, date, datetime
from http.server import ThreadingHTTPServer
from pathlib import Path

import duckdb
import pytest

from gpuvalue.flows import pipeline as P
from gpuvalue.flows import loaders
from gpuvalue.flows import stages
from gpuvalue.models.listing_enrichment import listing_rows, matched_rows
from gpuvalue.models.records import Listing
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.replay import packaged_replay_dir
from local_web import QuietSite, ToLocalServer, recorded_console

pytestmark = pytest.mark.e2e

TODAY = date(2026, 12, 1)  # the day after replay_db's
STORED_ON = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)  # when ebay-html last read its listings
LISTINGS = Path(__file__).resolve().parents[1] / "fixtures" / "listings"
ATOM = (LISTINGS / "reddit_hardwareswap_new_2017-10-18.atom.xml").read_bytes()
SIGN_IN = (b'<!DOCTYPE html><html><head><title>Sign in or Register | eBay</title></head><body>'
           b'<form id="signin-form" action="https://signin.ebay.com/signin/s"><input name="userid"></form></body></html>')
SUBREDDITS = ("hardwareswap", "CanadianHardwareSwap")


class LateWeb(QuietSite):
    """Answers as the sites did in late 2026; ``seen`` keeps (host, path) of every request."""

    seen: list[tuple[str, str]] = []
    recorded: dict[str, bytes] = {}
    feeds_asked: Counter = Counter()

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        host = (self.headers.get("Host") or "").split(":")[0]
        path = self.path
        type(self).seen.append((host, path))
        if path == "/robots.txt":
            return self._send(200, b"User-agent: *\nAllow: /\n", {"Content-Type": "text/plain"})
        if ".ebay." in host and path.startswith("/sch/"):
            return self._send(200, SIGN_IN, {"Content-Type": "text/html; charset=utf-8"})
        if host == "www.reddit.com" and ".json" in path:
            return self._send(403, b"Blocked", {"Content-Type": "text/plain"})
        if host == "www.reddit.com" and "/new/.rss" in path:
            type(self).feeds_asked[path] += 1
            if type(self).feeds_asked[path] == 1:
                return self._send(429, b"Too Many Requests", {"Retry-After": "2"})
            return self._send(200, ATOM, {"Content-Type": "application/atom+xml; charset=UTF-8"})
        body = type(self).recorded.get(f"https://{host}{path}")
        if body is not None:
            return self._send(200, body, {"Content-Type": "text/plain"})
        return self._send(404, b"not here")


@pytest.fixture
def console(monkeypatch):
    """What Prefect's console handlers print, after their filters."""
    yield from recorded_console(monkeypatch)


def _seed_ebay_html_prices(db: Path) -> None:
    """What ebay-html read on 2026-11-20, before eBay walled it: four used RTX 3090s at asking prices."""
    from gpuvalue.warehouse.db import open_database

    con = open_database(db)
    try:
        listings = [Listing(source="ebay-html", listing_id=f"30000000000{i}", title=f"NVIDIA GeForce RTX 3090 24GB {brand}",
                            price=price, currency="USD", shipping=0.0, condition="Used", buying_option="FIXED_PRICE",
                            seen_at=STORED_ON, url=f"https://www.ebay.com/itm/30000000000{i}", marketplace="EBAY_US")
                    for i, (brand, price) in enumerate([("EVGA FTW3", 690.0), ("Founders Edition", 710.0),
                                                        ("ASUS TUF", 730.0), ("MSI Ventus", 750.0)])]
        rows = listing_rows(listings, stages.catalog_matcher(con), None)
        assert matched_rows(rows) == 4
        loaders.load_listings(con, rows)
    finally:
        con.close()


@pytest.fixture
def late_web(monkeypatch):
    from gpuvalue.scrapers.sources.lambda_bench import LAMBDA_FILES

    archive = Archive(packaged_replay_dir())
    recorded = archive.latest_by_url()
    LateWeb.seen, LateWeb.feeds_asked = [], Counter()
    LateWeb.recorded = {f.url.split("?")[0]: archive.read_body(recorded[f.url].sha256) for f in LAMBDA_FILES}
    server = ThreadingHTTPServer(("127.0.0.1", 0), LateWeb)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    sleeps: list[float] = []

    def make_client(settings, replay, replay_dir=None) -> PoliteClient:
        return PoliteClient(transport=ToLocalServer(server.server_address[1]), min_interval_s=0.0, sleep=sleeps.append)

    monkeypatch.setattr(P, "make_client", make_client)
    monkeypatch.setenv("GPUVALUE_HARDWARESWAP_SUBREDDITS", ",".join(SUBREDDITS))
    monkeypatch.delenv("REDDIT_CLIENT_ID", raising=False)
    monkeypatch.delenv("EBAY_CLIENT_ID", raising=False)
    try:
        yield sleeps
    finally:
        server.shutdown()
        server.server_close()


def test_refusals_are_named_and_the_refused_source_keeps_its_prices(prefect_harness, replay_db, tmp_path, late_web,
                                                                      console):
    from gpuvalue.flows import daily  # here, not at the top: the fast tier imports no Prefect

    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    _seed_ebay_html_prices(db)
    summary = daily.daily_flow(as_of=TODAY, replay=False, db=str(db), sources=["ebay-html", "hardwareswap", "lambda"],
                               export=False)

    # eBay's sign-in wall: one line that says what eBay did, what the user can do, and what is kept.
    ebay = summary.outcomes["ebay-html"]
    assert ebay.status == "failed" and "\n" not in ebay.error
    assert ("eBay US, eBay UK, eBay DE, eBay CA, eBay AU answered every search with a sign-in page, not a result list"
            in ebay.error)
    assert "EBAY_CLIENT_ID and EBAY_CLIENT_SECRET" in ebay.error
    assert ebay.kept == "keeps its data of 2026-11-20 (11 days old)"
    assert ebay.note(160).startswith("keeps its data of 2026-11-20 (11 days old); AccessRefused: https://www.ebay.com/: ")
    searches = [(h, p) for h, p in LateWeb.seen if p.startswith("/sch/")]
    assert len(searches) == 10  # per site, the sold search and then the active one; never retried
    # Reddit: never asked for the JSON it refuses; each feed's 429 waited out as Retry-After asked, then read.
    assert not any(".json" in p for h, p in LateWeb.seen if h == "www.reddit.com")
    assert [LateWeb.feeds_asked[f"/r/{sub}/new/.rss?limit=100"] for sub in SUBREDDITS] == [2, 2]
    assert late_web.count(2.0) == 2
    assert summary.outcomes["hardwareswap"].status == "ok" and summary.outcomes["hardwareswap"].rows > 0
    assert summary.outcomes["lambda"].status == "ok"

    # One line per refusal on the console, no traceback.
    printed = console.getvalue()
    assert "Traceback" not in printed
    [line] = [line for line in printed.splitlines() if "source ebay-html failed" in line]
    assert "answered every search with a sign-in page" in line and line.endswith("(11 days old)")

    # The run ranks, and the refused source's stored prices rank with their date and age.
    assert summary.ranked > 0 and summary.failed == ["ebay-html"]
    con = duckdb.connect(str(db), read_only=True)
    try:
        row = con.execute("SELECT price_usd, price_kind, price_n, price_as_of, price_age_days FROM ranking_daily "
                          "WHERE as_of = ? AND model = 'GeForce RTX 3090'", [TODAY]).fetchone()
        status, error = con.execute("SELECT status, error FROM runs WHERE run_id = ? AND source = 'ebay-html'",
                                    [summary.run_id]).fetchone()
    finally:
        con.close()
    assert row is not None and row[1] == "asking" and row[2] == 4
    assert (row[3], row[4]) == (date(2026, 11, 20), 11)
    assert 690.0 <= row[0] <= 750.0
    assert status == "failed" and error.endswith("; keeps its data of 2026-11-20 (11 days old)")


def test_the_flow_re_runs_only_what_a_retry_can_fix():
    from gpuvalue.flows.daily import _transient
    from gpuvalue.scrapers.errors import AccessRefused, FetchError, NotRecordedError, ParseError, RobotsDisallowed

    class State:
        def __init__(self, error):
            self.error = error

        def result(self):
            raise self.error

    never = [AccessRefused("u", "sign-in page"), FetchError("u", "HTTP 403 Forbidden (not retried)", retryable=False),
             RobotsDisallowed("u", "w"), NotRecordedError("u", "w"), ParseError("s", "u", "w"),
             FetchError("u", "ConnectError: host unreachable (not retried)", retryable=False)]
    again = [FetchError("u", "HTTP 429 Too Many Requests after 5 attempts"), FetchError("u", "ReadTimeout after 5 attempts")]
    assert [_transient(None, None, State(e)) for e in never] == [False] * len(never)
    assert [_transient(None, None, State(e)) for e in again] == [True] * len(again)
