"""FSDL's serverless GPU table as recorded (tests/fixtures/cloud/fsdl_serverless-gpus: the version of
2024-05-20): one offer per priced row, marked serverless, dated by the table, opt-in."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime
from pathlib import Path

import httpx
import pytest

from gpuvalue.models.offer_matching import match_offers
from gpuvalue.models.rental import validate_prices
from gpuvalue.scrapers.archive import Archive
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.http import PoliteClient
from gpuvalue.scrapers.replay import ReplayTransport
from gpuvalue.scrapers.replay_build import build
from gpuvalue.scrapers.source import FetchContext, page_from_file
from gpuvalue.scrapers.sources import fsdl_serverless_gpus as serverless

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
BODY = (FIXTURES / serverless.FIXTURE).read_bytes()
AS_OF = date(2024, 5, 20)
TODAY = datetime(2026, 11, 30, 6, 0, tzinfo=UTC)


def parse(body: bytes = BODY):
    """The offers (matched as the enrich stage matches them) and the warnings."""
    offers, warnings = serverless.read_serverless_gpus(body, serverless.LIVE_URL, AS_OF)
    return match_offers(offers), warnings


def rows() -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(BODY.decode())))


def test_one_offer_per_row_every_one_marked_serverless_and_none_dropped():
    offers, warnings = parse()
    assert len(offers) == len(rows()) == 72 and warnings == []
    kept, dropped = validate_prices(offers)
    assert dropped == []
    assert all(o.provider.endswith("-serverless") and o.instance_type.startswith("serverless ") for o in offers)
    assert all(o.spot_usd_per_hour is None and o.spot_usd_per_gpu_hour is None for o in offers)
    assert {o.provider for o in offers} == {
        "banana-serverless", "baseten-serverless", "beam-serverless", "covalent-serverless", "modal-serverless",
        "ovhcloud-serverless", "replicate-serverless", "runpod-serverless", "inferless-serverless",
        "mystic-ai-serverless"}
    assert len({(o.provider, o.instance_type) for o in offers}) == len(offers)  # one key per offer


def test_the_price_per_gpu_hour_is_the_whole_price_divided():
    by_type = {(o.provider, o.instance_type): o for o in parse()[0]}
    eight = by_type[("baseten-serverless", "serverless 8x A10G (24 GB), 192 vCPUs, 768 GB RAM")]
    assert eight.gpu_count == 8 and eight.usd_per_hour == 19.55 and eight.usd_per_gpu_hour == pytest.approx(19.55 / 8)
    t4 = by_type[("baseten-serverless", "serverless 1x T4 (16 GB), 4 vCPUs, 16 GB RAM")]
    assert t4.usd_per_gpu_hour == 0.63  # its Per-GPU says 0.64: rounding, no warning
    runpod = by_type[("runpod-serverless", "serverless 1x A4000 (16 GB), 6 vCPUs, 23 GB RAM")]
    assert runpod.usd_per_gpu_hour == 0.72 and runpod.model == "RTX A4000"


def test_mystic_ais_rows_read_their_dollar_signs_units_and_unstated_sizes():
    mystic = [o for o in parse()[0] if o.provider == "mystic-ai-serverless"]
    assert [(o.instance_type, o.usd_per_gpu_hour, o.gpu_memory_gb) for o in mystic] == [
        ("serverless 1x Nvidia T4 (16 GB)", 0.4, 16.0),
        ("serverless 1x Nvidia A100 (40 GB)", 3.0, 40.0),
        ("serverless 1x Nvidia A100 (80 GB)", 4.0, 80.0),
        ("serverless 1x Nvidia L4 (24 GB)", 0.75, 24.0),
    ]
    assert all(o.vcpus is None and o.memory_gib is None for o in mystic)  # 0 in the table: not stated


# Every distinct name and memory per GPU the table holds, labelled: a model only where the row settles it.
LABELS = {
    ("A5000 (24 GB)", 24): "RTX A5000", ("A4000 (16 GB)", 16): "RTX A4000", ("A6000 (48 GB)", 48): "RTX A6000",
    ("T4 (16 GB)", 16): "Tesla T4", ("Nvidia T4", 16): "Tesla T4", ("A10G (24 GB)", 24): "A10G",
    ("A10 (24 GB)", 24): "A10 PCIe", ("A40", 48): "A40 PCIe", ("L40 (48 GB)", 48): "L40",
    ("L4 (24 GB)", 24): "L4", ("Nvidia L4", 24): "L4",
    # PCIe or SXM, which the row does not say
    ("V100 (16 GB)", 16): None, ("V100 (32 GB)", 32): None, ("A100 (40 GB)", 40): None, ("A100 (80 GB)", 80): None,
    ("Nvidia A100", 40): None, ("Nvidia A100", 80): None, ("H100 (80 GB)", 80): None,
    ("A100 (20 GB)", 20): None,  # a share of an A100, not a card
}


def test_each_gpu_name_matches_as_labelled():
    offers = parse()[0]
    got = {(o.gpu_name, o.gpu_memory_gb): o.model for o in offers}
    assert got == {(name, float(memory)): model for (name, memory), model in LABELS.items()}
    twenty = next(o for o in offers if o.gpu_name == "A100 (20 GB)")
    assert twenty.match_reason.startswith("memory contradicts")


def test_a_header_without_a_needed_column_is_refused_naming_it():
    renamed = BODY.replace(b"Per-Hour", b"Hourly", 1)
    with pytest.raises(ParseError) as caught:
        parse(renamed)
    assert "'Per-Hour'" in str(caught.value) and serverless.LIVE_URL in str(caught.value)


@pytest.mark.parametrize("body", [b"", b"\x00\x01", b"Vendor,GPU Type,GPUs,Per-Hour,Per-GPU\nModal,T4,1,cheap,0.5\n",
                                  b"Vendor,GPU Type,GPUs,Per-Hour,Per-GPU\nModal,T4,1\n"])
def test_what_is_not_the_table_is_a_parse_error(body):
    with pytest.raises(ParseError):
        parse(body)


def test_a_row_without_a_price_or_a_count_is_skipped_and_said():
    body = b"Vendor,GPU Type,GPUs,Per-Hour,Per-GPU\nModal,T4 (16 GB),1,,\nModal,T4 (16 GB),1-4,1.0,1.0\n"
    offers, warnings = parse(body)
    assert offers == [] and len(warnings) == 2 and "no price" in warnings[0] and "'1-4'" in warnings[1]


CHANGED = BODY.replace(b"Modal,T4 (16 GB),Turing,1,16,2,16,1.17,1.17", b"Modal,T4 (16 GB),Turing,1,16,2,16,0.59,0.59")
NEW_COMMIT = "0123456789abcdef0123456789abcdef01234567"


def test_the_known_version_is_dated_by_the_table_and_a_changed_one_as_old_never_by_its_capture():
    dated = serverless.data_date(page_from_file(serverless.NAME, BODY, serverless.LIVE_URL, TODAY))
    assert (dated.day, dated.known) == (AS_OF, True)
    assert CHANGED != BODY
    dated = serverless.data_date(page_from_file(serverless.NAME, CHANGED, serverless.LIVE_URL, TODAY))
    assert (dated.day, dated.known) == (AS_OF, False) and "unknown date" in dated.how
    parsed = serverless.SOURCE.parse(page_from_file(serverless.NAME, CHANGED, serverless.LIVE_URL, TODAY))
    assert {o.as_of for o in parsed.records} == {AS_OF} and "not the day it was read" in parsed.warnings[0]


def _client(transport: httpx.BaseTransport) -> PoliteClient:
    return PoliteClient(transport=transport, min_interval_s=0.0, sleep=lambda _s: None, max_retries=0,
                        now=lambda: TODAY)


def _live(files: dict[str, bytes], commits: bytes | int):
    """A live fetch, offline: ``files`` served by URL, the commits API answering ``commits`` (an HTTP
    status for a refusal); returns (parsed, fetched, the URLs asked)."""
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        url = str(request.url)
        asked.append(url)
        if request.url.path == "/robots.txt":
            return httpx.Response(404, request=request)
        if url == serverless.COMMITS_URL:
            if isinstance(commits, int):
                return httpx.Response(commits, json={"message": "API rate limit exceeded"}, request=request)
            return httpx.Response(200, content=commits, headers={"content-type": "application/json"}, request=request)
        if url in files:
            return httpx.Response(200, content=files[url], headers={"content-type": "text/plain"}, request=request)
        return httpx.Response(404, request=request)

    with _client(httpx.MockTransport(answer)) as client:
        fetched = serverless.SOURCE.fetch(FetchContext(client=client, settings=None, replay=False))
    return serverless.SOURCE.parse_pages(fetched.pages), fetched, asked


def test_a_live_fetch_of_the_same_table_keeps_its_date():
    pinned = serverless.pinned_url(serverless.FIXTURE_COMMIT)
    parsed, fetched, asked = _live({pinned: BODY}, (FIXTURES / serverless.COMMITS_FIXTURE).read_bytes())
    assert asked == [serverless.COMMITS_URL, "https://raw.githubusercontent.com/robots.txt", pinned]
    assert len(parsed.records) == 72 and {o.as_of for o in parsed.records} == {AS_OF}


def test_a_changed_table_is_dated_by_the_commit_that_changed_it_not_by_today():
    answer = json.dumps([{"sha": NEW_COMMIT, "commit": {"committer": {"name": "C", "date": "2026-03-02T08:00:00+01:00"}}}])
    parsed, _, asked = _live({serverless.pinned_url(NEW_COMMIT): CHANGED}, answer.encode())
    assert {o.as_of for o in parsed.records} == {date(2026, 3, 2)} and serverless.LIVE_URL not in asked
    modal_t4 = next(o for o in parsed.records if o.provider == "modal-serverless" and o.gpu_name == "T4 (16 GB)")
    assert modal_t4.usd_per_gpu_hour == 0.59


@pytest.mark.parametrize("commits", [403, 404, b"{}", b"[]"])
def test_without_the_commits_answer_main_is_read_and_never_dated_today(commits):
    parsed, fetched, asked = _live({serverless.LIVE_URL: BODY}, commits)
    assert asked[-1] == serverless.LIVE_URL and {o.as_of for o in parsed.records} == {AS_OF}
    assert any("serverless-gpus.csv last changed is unknown" in w for w in fetched.warnings)
    parsed, _, _ = _live({serverless.LIVE_URL: CHANGED}, commits)
    assert {o.as_of for o in parsed.records} == {AS_OF}  # at least as old as the newest known version
    assert any("unknown date" in w for w in parsed.warnings)


def test_the_replay_serves_the_recording_through_the_live_code(tmp_path):
    archive = build(FIXTURES, tmp_path, (serverless.NAME,))
    answer, table = list(archive.entries())
    assert (answer.source, answer.url, answer.fetched_at.date()) == (serverless.NAME, serverless.COMMITS_URL, AS_OF)
    assert (table.source, table.url, table.fetched_at.date()) == (
        serverless.NAME, serverless.pinned_url(serverless.FIXTURE_COMMIT), AS_OF)
    assert table.note.startswith("the-full-stack/website@2bddc6d52544dc258e7e34396c6958377f72816b:")
    with _client(ReplayTransport(Archive(tmp_path))) as client:
        fetched = serverless.SOURCE.fetch(FetchContext(client=client, settings=None, replay=True))
    assert fetched.warnings == []
    offers = serverless.SOURCE.parse_pages(fetched.pages).records
    assert len(offers) == 72 and {o.as_of for o in offers} == {AS_OF}


def test_it_is_opt_in_and_recorded_in_its_own_index():
    from gpuvalue.flows.settings import ALL_SOURCES
    from gpuvalue.scrapers import registry
    from gpuvalue.scrapers.replay import packaged_replay_dir

    assert serverless.SOURCE.default is False and serverless.NAME not in ALL_SOURCES
    assert registry.get(serverless.NAME) is serverless.SOURCE
    shipped = [e for e in Archive(packaged_replay_dir()).entries() if e.source == serverless.NAME]
    assert [(e.url, e.fetched_at.date()) for e in shipped] == [
        (serverless.COMMITS_URL, AS_OF), (serverless.pinned_url(serverless.FIXTURE_COMMIT), AS_OF)]
