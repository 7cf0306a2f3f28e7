"""FSDL's cloud-gpus.csv, every committed version as published (tests/fixtures/cloud/fsdl_cloud-gpus)."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from datetime import date, datetime, timezone
from pathlib import Path

import httpx
import pytest

from gpuvalue.models.offer_matching import match_offers
from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import validate_prices
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.github_commits import read_last_commit
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.source import FetchContext
from gpuvalue.scrapers.sources import fsdl_cloud_gpus as fsdl

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
FOLDER = FIXTURES / "cloud" / "fsdl_cloud-gpus"
HEAD = FOLDER / "cloud-gpus_HEAD_2025-03-07.csv"
AS_OF = date(2025, 3, 7)


def version(short: str) -> tuple[str, bytes]:
    """(pinned URL, body) of the history version whose commit starts with ``short``."""
    commit, day = next((c, d) for c, d in fsdl.HISTORY if c.startswith(short))
    return fsdl.pinned_url(commit), (FIXTURES / fsdl.history_fixture(commit, day)).read_bytes()


def data_rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(data.decode())))[1:]


def to_csv(rows: list[list[str]]) -> bytes:
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerows(rows)
    return out.getvalue().encode()


def test_head_one_offer_per_row_in_file_order():
    data = HEAD.read_bytes()
    offers, warnings = fsdl.read_fsdl_cloud_gpus(data, fsdl.LIVE_URL, AS_OF)
    offers = match_offers(offers)  # as the enrich stage matches them
    rows = data_rows(data)
    assert len(offers) == len(rows) == 257
    assert [(o.gpu_name, o.instance_type) for o in offers] == [(r[1], r[10] or None) for r in rows]
    first = offers[0]
    assert (first.provider, first.gpu_name, first.instance_type, first.gpu_count) == ("aws", "A100 (80 GB)", "p4de.24xlarge", 8)
    assert first.usd_per_hour == 40.97 and first.usd_per_gpu_hour == pytest.approx(40.97 / 8)
    assert first.spot_usd_per_gpu_hour is None  # blank spot
    assert first.model == "A100 SXM4 80 GB" and first.gpu_memory_gb == 80 and first.gpu_arch == "Ampere"
    assert (first.vcpus, first.memory_gib, first.region, first.as_of) == (96, 1152, None, AS_OF)
    p4d = offers[1]
    assert p4d.spot_usd_per_hour == 9.83 and p4d.spot_usd_per_gpu_hour == pytest.approx(9.83 / 8)
    assert validate_prices(offers)[1] == []


def test_dollar_prefixed_prices_of_the_first_versions():
    url, data = version("64463be")  # 2022-08-04: every price has a $
    offers = fsdl.parse_fsdl_cloud_gpus(data, url, date(2022, 8, 4))
    assert len(offers) == len(data_rows(data))
    assert (offers[1].usd_per_hour, offers[1].spot_usd_per_hour) == (32.77, 9.83)
    for short, day in (("9543ed8", date(2022, 8, 5)), ("ee94380", date(2022, 8, 8))):
        url, data = version(short)
        assert b"$37.18" in data
        offers = match_offers(fsdl.parse_fsdl_cloud_gpus(data, url, day))
        nd96 = next(o for o in offers if o.instance_type == "ND96amsr A100 v4")
        assert nd96.usd_per_hour == 37.18 and nd96.usd_per_gpu_hour == pytest.approx(37.18 / 8)
        assert nd96.provider == "azure" and nd96.model is None  # Azure states no form factor for NDm A100 v4
        assert all(o.as_of == day for o in offers)


def test_gpu_count_ranges_are_skipped_with_a_warning():
    url, data = version("5e388f2")
    offers, warnings = fsdl.read_fsdl_cloud_gpus(data, url, date(2023, 5, 24))
    assert len(offers) == len(data_rows(data)) - 9
    ranges = [w for w in warnings if "names no one offer" in w]
    assert len(ranges) == 9 and "'1-8'" in ranges[0] and "Oblivus Cloud" in ranges[0]


def test_repeated_header_row_and_vcpu_ranges():
    url, data = version("7d9be86")
    offers, warnings = fsdl.read_fsdl_cloud_gpus(data, url, date(2024, 2, 27))
    offers = match_offers(offers)
    assert any("line 86: a repeated header row" in w for w in warnings)
    assert len(offers) == len(data_rows(data)) - 1
    t4 = next(o for o in offers if o.instance_type == "gc2.t4-16-1")
    assert (t4.vcpus, t4.memory_gib, t4.usd_per_hour, t4.model) == (None, None, 0.34, "Tesla T4")


def test_rows_without_a_price_are_skipped_and_per_gpu_only_rows_kept():
    url, data = version("d9c548b")  # 2025-02-24: Exoscale rows with no price at all
    offers, warnings = fsdl.read_fsdl_cloud_gpus(data, url, date(2025, 2, 24))
    assert sum("no price, skipped" in w for w in warnings) == 6
    assert not any(o.provider == "exoscale" and o.instance_type.startswith(("GPU3080Ti", "GPUA5000")) for o in offers)
    offers, warnings = fsdl.read_fsdl_cloud_gpus(HEAD.read_bytes(), fsdl.LIVE_URL, AS_OF)
    offers = match_offers(offers)
    small = next(o for o in offers if o.instance_type == "GPU3080Ti SMALL")
    assert (small.usd_per_hour, small.usd_per_gpu_hour, small.model) == (None, 0.92361, "GeForce RTX 3080 Ti")
    assert any("only a Per-GPU price" in w for w in warnings)


def test_per_gpu_that_disagrees_with_the_instance_price_is_flagged():
    offers, warnings = fsdl.read_fsdl_cloud_gpus(HEAD.read_bytes(), fsdl.LIVE_URL, AS_OF)
    assert any("Per-GPU differs" in w for w in warnings)
    cudo = next(o for o in offers if o.provider == "cudo-compute" and o.gpu_count == 8 and o.gpu_name.startswith("A4000"))
    assert cudo.usd_per_gpu_hour == pytest.approx(cudo.usd_per_hour / 8)


def test_every_version_parses_and_replays_under_dated_urls():
    recordings = list(fsdl._replay(FIXTURES))
    assert len(recordings) == 54  # 53 history versions + the commits API's answer naming the newest
    commits = {line.split()[1]: line.split()[2] for line in (FOLDER / "history" / "commits.txt").read_text().splitlines()}
    assert dict(fsdl.HISTORY) == commits
    assert len({r.page.url for r in recordings}) == 54
    for rec in recordings[:-1]:
        commit = rec.page.url.split("/")[5]
        assert rec.page.url == fsdl.pinned_url(commit)
        assert rec.page.fetched_at == datetime.fromisoformat(commits[commit]).replace(tzinfo=timezone.utc)
        assert commit in rec.provenance and commits[commit] in rec.provenance
    answer = recordings[-1]
    assert answer.page.url == fsdl.COMMITS_URL == (
        "https://api.github.com/repos/the-full-stack/website/commits?path=docs/cloud-gpus/cloud-gpus.csv&per_page=1")
    assert answer.page.fetched_at.date() == date(2025, 3, 7)
    last = read_last_commit(answer.page.body)
    assert (last.sha, last.day) == (fsdl.HISTORY[-1][0], date(2025, 3, 7))
    assert fsdl.SOURCE.parse(answer.page).records == []
    assert fsdl.LIVE_URL == "https://raw.githubusercontent.com/the-full-stack/website/main/docs/cloud-gpus/cloud-gpus.csv"
    assert HEAD.read_bytes() == recordings[-2].page.body  # the snapshot's file is the newest version
    total = 0
    for rec in recordings[:-1]:
        parsed = fsdl.SOURCE.parse(rec.page)
        assert parsed.kind == "rental" and parsed.records
        assert all(o.as_of == rec.page.fetched_at.date() for o in parsed.records)
        assert validate_prices(parsed.records)[1] == []
        total += len(parsed.records)
    assert total > 8500  # 8,804 offers in the 53 versions
    assert all((FIXTURES / path).is_file() for path in fsdl.SOURCE.fixtures) and len(fsdl.SOURCE.fixtures) == 55


def test_as_of_of_a_pinned_url_is_its_commit_date_whatever_the_capture_date():
    url, data = version("0c4a04d")
    page = FetchedPage(source=fsdl.NAME, url=url, status=200, fetched_at=datetime(2026, 5, 1, tzinfo=timezone.utc),
                       sha256="0" * 64, body=data, content_type="text/csv")
    assert fsdl.commit_date(url) == date(2023, 2, 1)
    assert {o.as_of for o in fsdl.SOURCE.parse(page).records} == {date(2023, 2, 1)}
    live = page.model_copy(update={"url": fsdl.LIVE_URL})
    assert fsdl.commit_date(fsdl.LIVE_URL) is None
    # Read from main, the same bytes are the same version: dated by its commit, not by its capture.
    assert {o.as_of for o in fsdl.SOURCE.parse(live).records} == {date(2023, 2, 1)}


def test_every_version_is_known_by_the_sha256_of_its_bytes():
    for commit, day in fsdl.HISTORY:
        body = (FIXTURES / fsdl.history_fixture(commit, day)).read_bytes()
        assert fsdl.KNOWN_VERSIONS[hashlib.sha256(body).hexdigest()] == date.fromisoformat(day), commit
    assert len(fsdl.KNOWN_VERSIONS) == len(fsdl.HISTORY) and fsdl.NEWEST_KNOWN == date(2025, 3, 7)


def test_a_version_of_unknown_date_is_dated_by_the_newest_known_one_and_said_never_by_its_capture():
    changed = HEAD.read_bytes().replace(b"40.97", b"35.00", 1)
    assert changed != HEAD.read_bytes()
    page = FetchedPage(source=fsdl.NAME, url=fsdl.LIVE_URL, status=200, fetched_at=datetime(2026, 11, 30, tzinfo=timezone.utc),
                       sha256="0" * 64, body=changed, content_type="text/csv")
    parsed = fsdl.SOURCE.parse(page)
    assert {o.as_of for o in parsed.records} == {date(2025, 3, 7)}
    assert "unknown date" in parsed.warnings[0] and fsdl.LIVE_URL in parsed.warnings[0]


def test_provider_names():
    assert fsdl.provider_slug("RunPod.io") == fsdl.provider_slug("RunPod") == "runpod"
    assert fsdl.provider_slug("Oracle Cloud") == "oracle-cloud"
    assert fsdl.provider_slug(" AWS ") == "aws"


@pytest.mark.parametrize("column", fsdl.REQUIRED_COLUMNS)
def test_a_renamed_column_is_refused_naming_file_and_column(column):
    rows = list(csv.reader(io.StringIO(HEAD.read_text())))
    rows[0] = [f"{c} (USD)" if c == column else c for c in rows[0]]
    with pytest.raises(ParseError) as raised:
        fsdl.parse_fsdl_cloud_gpus(to_csv(rows), fsdl.LIVE_URL, AS_OF)
    assert raised.value.source == "fsdl-cloud-gpus" and raised.value.url == fsdl.LIVE_URL
    assert repr(column) in raised.value.what


def test_a_missing_column_is_refused():
    rows = list(csv.reader(io.StringIO(HEAD.read_text())))
    drop = rows[0].index("Per-GPU")
    with pytest.raises(ParseError, match="'Per-GPU'"):
        fsdl.parse_fsdl_cloud_gpus(to_csv([[c for i, c in enumerate(r) if i != drop] for r in rows]), fsdl.LIVE_URL, AS_OF)


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
        b"\xff\xfe\x00C\x00l",
        b"404: Not Found",
        b"Cloud,GPU Type,GPUs,On-demand,Per-GPU,Spot\nAWS,T4,one,1.0,1.0,\n",
        b"Cloud,GPU Type,GPUs,On-demand,Per-GPU,Spot\nAWS,T4,1,cheap,1.0,\n",
        b"Cloud,GPU Type,GPUs,On-demand,Per-GPU,Spot\nAWS,T4,1,1.0\n",
        b"Cloud,GPU Type,GPUs,On-demand,Per-GPU,Spot\n,T4,1,1.0,1.0,\n",
        b"Cloud,GPU Type,GPUs,On-demand,Per-GPU,Spot\nAWS,T4,1,nan,1.0,\n",
    ],
)
def test_garbage_raises_only_parse_error(garbage):
    with pytest.raises(ParseError):
        fsdl.parse_fsdl_cloud_gpus(garbage, fsdl.LIVE_URL, AS_OF)


class _Client:
    """Answers the commits API with the recorded answer, every other URL with an empty page."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def get(self, url, source, headers=None):
        self.asked.append((url, source))
        body = (FIXTURES / fsdl.COMMITS_FIXTURE).read_bytes() if url == fsdl.COMMITS_URL else b""
        return FetchedPage(source=source, url=url, status=200, fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                           sha256="0" * 64, body=body, content_type="text/csv")


def test_fetch_reads_the_newest_version_only_pinned_to_the_commit_that_last_changed_it():
    client = _Client()
    fetched = fsdl._fetch(fsdl.FetchContext(client=client, settings=None, replay=False))
    newest = fsdl.pinned_url(fsdl.HISTORY[-1][0])
    assert client.asked == [(fsdl.COMMITS_URL, "fsdl-cloud-gpus"), (newest, "fsdl-cloud-gpus")]
    assert [p.url for p in fetched.pages] == [fsdl.COMMITS_URL, newest] and fetched.warnings == []


def test_a_replay_fetch_reads_one_version_per_commit_date_then_the_newest():
    client = _Client()
    fsdl._fetch(fsdl.FetchContext(client=client, settings=None, replay=True))
    asked = [url for url, _ in client.asked]
    history = fsdl.replay_history()
    assert asked == [fsdl.pinned_url(c) for c, _ in history] + [fsdl.COMMITS_URL, fsdl.pinned_url(fsdl.HISTORY[-1][0])]
    days = [d for _, d in history]
    order = [next(i for i, (c, _) in enumerate(fsdl.HISTORY) if c == commit) for commit, _ in history]
    assert days == sorted(set(days)) and order == sorted(order)  # one version a date, never stepping back
    assert days[-1] < date(2025, 3, 7)  # the newest date is the live URL's
    # The day's last commit: 2023-05-24 had seven; 2023-10-31's commit precedes three dated 2023-10-30.
    assert dict((d, c[:7]) for c, d in history)[date(2023, 5, 24)] == "42c70d1"
    assert date(2023, 10, 31) not in days and dict((d, c[:7]) for c, d in history)[date(2023, 10, 30)] == "dd7027c"


def test_every_version_a_replay_reads_is_in_the_shipped_archive():
    from gpuvalue.scrapers.archive import Archive
    from gpuvalue.scrapers.replay import packaged_replay_dir

    recorded = Archive(packaged_replay_dir()).latest_by_url()
    for url in [fsdl.pinned_url(c) for c, _ in fsdl.HISTORY] + [fsdl.COMMITS_URL]:
        assert recorded[url].source == "fsdl-cloud-gpus"
    assert recorded[fsdl.COMMITS_URL].fetched_at.date() == date(2025, 3, 7)
    assert fsdl.LIVE_URL not in recorded  # a replay reads the newest version as a live run does: pinned


# A live fetch, offline: the shared client over an httpx transport serving hand-written answers.
TODAY = datetime(2026, 11, 30, 6, 0, tzinfo=timezone.utc)
NEW_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _answer(sha: str, when: str) -> bytes:
    return json.dumps([{"sha": sha, "commit": {"author": {"name": "A", "date": when},
                                               "committer": {"name": "C", "date": when}, "message": "prices"}}]).encode()


def _live(files: dict[str, bytes], commits: httpx.Response | bytes):
    """A live fetch and parse of the source, ``files`` served by URL, the commits API answering ``commits``;
    returns (parsed, fetched, the URLs asked)."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        asked.append(url)
        if request.url.path == "/robots.txt":
            return httpx.Response(404, request=request)
        if url == fsdl.COMMITS_URL:
            assert request.headers["accept"] == "application/vnd.github+json"
            if isinstance(commits, httpx.Response):
                return httpx.Response(commits.status_code, headers=commits.headers, content=commits.content, request=request)
            return httpx.Response(200, content=commits, headers={"content-type": "application/json"}, request=request)
        if url in files:
            return httpx.Response(200, content=files[url], headers={"content-type": "text/plain"}, request=request)
        return httpx.Response(404, request=request)

    client = PoliteClient(transport=httpx.MockTransport(answer), min_interval_s=0.0, sleep=lambda _s: None,
                          max_retries=0, now=lambda: TODAY)
    with client:
        fetched = fsdl.SOURCE.fetch(FetchContext(client=client, settings=None, replay=False))
    return fsdl.SOURCE.parse_pages(fetched.pages), fetched, asked


def test_a_live_fetch_dates_the_table_by_its_last_commit_not_by_today():
    newest = fsdl.pinned_url(fsdl.HISTORY[-1][0])
    parsed, fetched, asked = _live({newest: HEAD.read_bytes()}, (FIXTURES / fsdl.COMMITS_FIXTURE).read_bytes())
    assert len(parsed.records) == 257 and {o.as_of for o in parsed.records} == {date(2025, 3, 7)}
    assert [p.url for p in fetched.pages] == [fsdl.COMMITS_URL, newest]
    assert {p.fetched_at for p in fetched.pages} == {TODAY}  # read today, of 2025-03-07
    assert "https://api.github.com/robots.txt" not in asked  # an API under its terms, as eBay's and Reddit's
    assert not [w for w in parsed.warnings if "unknown" in w]


def test_a_newer_version_is_dated_by_the_commit_that_made_it_read_at_that_commit():
    changed = HEAD.read_bytes().replace(b"40.97", b"35.00", 1)
    parsed, fetched, asked = _live({fsdl.pinned_url(NEW_COMMIT): changed}, _answer(NEW_COMMIT, "2026-02-01T23:30:00Z"))
    assert {o.as_of for o in parsed.records} == {date(2026, 2, 1)}
    assert parsed.records[0].usd_per_hour == 35.0
    assert fsdl.LIVE_URL not in asked  # main may be a cached older version: the commit's own file is read
    # Archived together, the pages date the table again the same way (a reparse).
    again = fsdl.SOURCE.parse_pages(list(reversed(fetched.pages)))
    assert {o.as_of for o in again.records} == {date(2026, 2, 1)}


@pytest.mark.parametrize("commits", [
    httpx.Response(403, headers={"x-ratelimit-remaining": "0"}, content=b'{"message": "API rate limit exceeded"}'),
    b"[]",
    b"<html>not JSON</html>",
    b'[{"sha": "b646e30", "commit": {}}]',
])
def test_without_an_answer_the_newest_known_version_keeps_its_date_and_an_unknown_one_is_old_never_today(commits):
    parsed, fetched, asked = _live({fsdl.LIVE_URL: HEAD.read_bytes()}, commits)
    assert asked[-1] == fsdl.LIVE_URL
    assert {o.as_of for o in parsed.records} == {date(2025, 3, 7)}
    assert any("when docs/cloud-gpus/cloud-gpus.csv last changed is unknown" in w for w in fetched.warnings)

    changed = HEAD.read_bytes().replace(b"40.97", b"35.00", 1)
    parsed, fetched, _ = _live({fsdl.LIVE_URL: changed}, commits)
    assert {o.as_of for o in parsed.records} == {fsdl.NEWEST_KNOWN} != {TODAY.date()}
    assert any("unknown date" in w and "not the day it was read" in w for w in parsed.warnings)


def test_an_answer_naming_another_commit_than_the_page_is_pinned_to_does_not_date_it():
    changed = HEAD.read_bytes().replace(b"40.97", b"35.00", 1)
    page = FetchedPage(source=fsdl.NAME, url=fsdl.pinned_url("f" * 40), status=200, fetched_at=TODAY, sha256="0" * 64,
                       body=changed, content_type="text/csv")
    answer = FetchedPage(source=fsdl.NAME, url=fsdl.COMMITS_URL, status=200, fetched_at=TODAY, sha256="0" * 64,
                         body=_answer(NEW_COMMIT, "2026-11-29T10:00:00Z"), content_type="application/json")
    parsed = fsdl.SOURCE.parse_pages([answer, page])
    assert {o.as_of for o in parsed.records} == {fsdl.NEWEST_KNOWN}
