"""What users and operators can and cannot do: `gpuvalue sql` only reads, exports go only where
they may, and eBay credentials used by a live run never land in anything the run leaves behind."""

from __future__ import annotations

import base64
import gzip
import logging
import shutil
from pathlib import Path
from urllib.parse import parse_qs

import duckdb
import httpx
import pytest
from typer.testing import CliRunner

from gpuvalue.flows import pipeline as P
from gpuvalue.flows.cli import app
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.replay import ReplayTransport, packaged_replay_dir

runner = CliRunner()
pytestmark = pytest.mark.e2e  # every test reads the replay run's warehouse

CLIENT_ID = "GpuValueSec-ClientId-7f3a9c"
CLIENT_SECRET = "PRD-sekrit-5e1d0b77c2a4"
ISSUED_TOKEN = "v^1.1#i^1#TOKEN-xq93kd-issued-by-the-fake-ebay"
SECRETS = {
    "client id": CLIENT_ID.encode(),
    "client secret": CLIENT_SECRET.encode(),
    "basic auth": base64.b64encode(f"{CLIENT_ID}:{CLIENT_SECRET}".encode()),
    "token": ISSUED_TOKEN.encode(),
    "token core": b"TOKEN-xq93kd",
}


# ---- gpuvalue sql is read-only and sandboxed ------------------------------------------------

@pytest.fixture(scope="module")
def sql_db(replay_db, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("sql") / "gpuvalue.duckdb"
    shutil.copy(replay_db, path)
    return path


def _sql(db: Path, query: str):
    return runner.invoke(app, ["sql", "--db", str(db), query])


@pytest.mark.parametrize(
    "query",
    [
        "INSERT INTO runs (run_id, source, stage, as_of, replay, started_at, status) VALUES ('x', 'x', 'x', DATE '2026-01-01', false, now(), 'ok')",
        "UPDATE listings SET price = 1",
        "DELETE FROM ranking_daily",
        "CREATE TABLE evil (x INT)",
        "DROP TABLE listings",
        "CREATE OR REPLACE VIEW ranking_latest AS SELECT 1",
    ],
)
def test_sql_cannot_write(sql_db, query):
    before = sql_db.read_bytes()
    res = _sql(sql_db, query)
    assert res.exit_code == 2
    assert "read-only" in res.output and "Traceback" not in res.output
    assert sql_db.read_bytes() == before


@pytest.mark.parametrize(
    "query_template",
    [
        "ATTACH '{tmp}/other.duckdb' AS other",
        "COPY (SELECT * FROM listings) TO '{tmp}/stolen.csv'",
        "COPY listings TO '{tmp}/stolen.parquet' (FORMAT parquet)",
        "SELECT * FROM read_csv('{tmp}/secret.txt')",
        "SELECT * FROM read_text('{tmp}/secret.txt')",
        "SET enable_external_access = true",
        "SET lock_configuration = false",
        "INSTALL httpfs",
        "LOAD httpfs",
    ],
)
def test_sql_cannot_touch_files_or_change_settings(sql_db, tmp_path, query_template):
    (tmp_path / "secret.txt").write_text("top secret\n")
    res = _sql(sql_db, query_template.format(tmp=tmp_path))
    assert res.exit_code == 2, res.output
    assert "top secret" not in res.output and "Traceback" not in res.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["secret.txt"]


def test_sql_still_reads(sql_db):
    res = runner.invoke(app, ["sql", "--db", str(sql_db), "--json", "SELECT count(*) AS n FROM ranking_daily"])
    assert res.exit_code == 0, res.output
    assert '"n": ' in res.output


# ---- export paths ---------------------------------------------------------------------------

@pytest.mark.parametrize(
    "target, message",
    [
        (lambda tmp: tmp / "missing" / "r.csv", "does not exist"),
        (lambda tmp: tmp, "is a directory"),
        (lambda tmp: tmp / "afile" / "r.csv", "is not a directory"),
    ],
)
def test_export_paths_are_checked(sql_db, tmp_path, target, message):
    (tmp_path / "afile").write_text("x")
    res = runner.invoke(app, ["export", "--db", str(sql_db), "--format", "csv", "--out", str(target(tmp_path))])
    assert res.exit_code == 2
    assert message in " ".join(res.output.split()) and "Traceback" not in res.output


def test_export_refuses_to_overwrite_the_database_itself(sql_db, tmp_path):
    db = tmp_path / "gpuvalue.duckdb"
    shutil.copy(sql_db, db)
    before = db.read_bytes()
    res = runner.invoke(app, ["export", "--db", str(db), "--format", "csv", "--out", str(db)])
    assert res.exit_code != 0
    assert db.read_bytes() == before


# ---- credentials never leave the request ----------------------------------------------------

class FakeEbay:
    """eBay's token endpoint (checking the Basic credentials) and Browse search, from the recorded envelopes."""

    def __init__(self) -> None:
        self.replay = ReplayTransport(Archive(packaged_replay_dir()))
        self.token_requests = 0
        self.searches = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            self.token_requests += 1
            assert request.headers["authorization"] == "Basic " + SECRETS["basic auth"].decode()
            assert parse_qs(request.content.decode())["grant_type"] == ["client_credentials"]
            return httpx.Response(200, json={"access_token": ISSUED_TOKEN, "expires_in": 7200,
                                             "token_type": "Application Access Token"},
                                  headers={"Set-Cookie": f"session={ISSUED_TOKEN}"})
        if request.url.host == "api.ebay.com":
            assert request.headers["authorization"] == f"Bearer {ISSUED_TOKEN}"
            self.searches += 1
            response = self.replay.handle_request(request)
            # Servers echo things back; the client must not keep them.
            response.headers["Set-Cookie"] = f"dp1=bu1p/{ISSUED_TOKEN}"
            return response
        return self.replay.handle_request(request)

    def make_client(self, settings, replay, replay_dir=None) -> PoliteClient:
        return PoliteClient(transport=httpx.MockTransport(self), min_interval_s=0.0, sleep=lambda s: None)


def _leaks(data: bytes) -> list[str]:
    return [name for name, secret in SECRETS.items() if secret in data]


@pytest.fixture(scope="module")
def live_run(replay_db, tmp_path_factory):
    """A live run of the eBay API and Lambda sources over yesterday's replay database (so it ranks and exports)."""
    from gpuvalue.flows import daily  # here, not at the top: the fast tier imports no Prefect

    folder = tmp_path_factory.mktemp("live")
    db = folder / "gpuvalue.duckdb"
    shutil.copy(replay_db, db)
    ebay = FakeEbay()
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    keep = Keep(level=logging.DEBUG)
    root = logging.getLogger()
    old_level = root.level
    root.addHandler(keep)
    root.setLevel(logging.DEBUG)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(P, "make_client", ebay.make_client)
            mp.setattr(daily, "fetch_task", daily.fetch_task.with_options(retry_delay_seconds=0))
            mp.setenv("EBAY_CLIENT_ID", CLIENT_ID)
            mp.setenv("EBAY_CLIENT_SECRET", CLIENT_SECRET)
            mp.setenv("GPUVALUE_SOURCES", '["ebay-browse", "lambda"]')
            res = runner.invoke(app, ["run", "--db", str(db), "--date", "2026-12-01"])
    finally:
        root.removeHandler(keep)
        root.setLevel(old_level)
    from prefect.logging.handlers import APILogWorker

    APILogWorker.drain_all(timeout=10)  # the run's logs reach Prefect's database before it is read
    return {"db": db, "folder": folder, "ebay": ebay, "res": res, "records": records}


def test_the_live_run_used_the_credentials(live_run):
    assert live_run["res"].exit_code == 0, live_run["res"].output
    assert live_run["ebay"].token_requests == 1 and live_run["ebay"].searches > 20
    con = duckdb.connect(str(live_run["db"]), read_only=True)
    assert con.execute("SELECT count(*) FROM listings WHERE source = 'ebay-browse'").fetchone()[0] > 1000
    con.close()


def test_credentials_are_not_in_logs_or_output(live_run):
    text = live_run["res"].output + "\n".join(
        f"{r.getMessage()} {r.args!r} {getattr(r, 'exc_text', '')}" for r in live_run["records"])
    assert live_run["records"], "the run logged nothing: the check would prove nothing"
    assert _leaks(text.encode()) == []


def test_credentials_are_not_in_the_raw_archive(live_run):
    raw = live_run["folder"] / "raw"
    index = (raw / "index.jsonl").read_bytes()
    assert b"api.ebay.com/buy/browse" in index
    assert b"oauth2/token" not in index  # the token response is never archived
    assert _leaks(index) == []
    bodies = list((raw / "bodies").rglob("*.gz"))
    assert len(bodies) > 20
    for body in bodies:
        assert _leaks(gzip.decompress(body.read_bytes())) == [], body


def test_credentials_are_not_in_the_database_exports_or_cache(live_run):
    files = [p for p in live_run["folder"].rglob("*") if p.is_file() and "raw" not in p.parts]
    assert any(p.name == "gpuvalue.duckdb" for p in files)
    assert any("exports" in p.parts for p in files)
    for path in files:
        assert _leaks(path.read_bytes()) == [], path


def test_credentials_are_not_in_prefects_database_or_artifacts(live_run):
    import os

    from prefect.settings import PREFECT_SERVER_DATABASE_CONNECTION_URL

    url = PREFECT_SERVER_DATABASE_CONNECTION_URL.value()
    sqlite = Path(url.split("///", 1)[1])
    prefect_files = [p for p in sqlite.parent.rglob("*") if p.is_file()]
    prefect_files += [p for p in Path(os.environ["PREFECT_HOME"]).rglob("*") if p.is_file()]
    assert any(p.name.startswith(sqlite.name) for p in prefect_files)
    assert b"gpuvalue-run-summary" in b"".join(p.read_bytes() for p in prefect_files if p.name.startswith(sqlite.name))
    for path in prefect_files:
        assert _leaks(path.read_bytes()) == [], path
