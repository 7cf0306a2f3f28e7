"""FSDL's cloud-gpus.csv, every committed version as published (tests/fixtures/cloud/fsdl_cloud-gpus)."""

from __future__ import annotations

import csv
import io
from datetime import date, datetime, timezone
from pathlib import Path

import pytest

from gpuvalue.models.records import FetchedPage
from gpuvalue.models.rental import validate_prices
from gpuvalue.scrapers.errors import ParseError
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
        offers = fsdl.parse_fsdl_cloud_gpus(data, url, day)
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
    assert len(recordings) == 54  # 53 history versions + the newest again at the live URL
    commits = {line.split()[1]: line.split()[2] for line in (FOLDER / "history" / "commits.txt").read_text().splitlines()}
    assert dict(fsdl.HISTORY) == commits
    assert len({r.page.url for r in recordings}) == 54
    for rec in recordings[:-1]:
        commit = rec.page.url.split("/")[5]
        assert rec.page.url == fsdl.pinned_url(commit)
        assert rec.page.fetched_at == datetime.fromisoformat(commits[commit]).replace(tzinfo=timezone.utc)
        assert commit in rec.provenance and commits[commit] in rec.provenance
    live = recordings[-1]
    assert live.page.url == fsdl.LIVE_URL == "https://raw.githubusercontent.com/the-full-stack/website/main/docs/cloud-gpus/cloud-gpus.csv"
    assert live.page.fetched_at.date() == date(2025, 3, 7) and live.page.body == HEAD.read_bytes()
    total = 0
    for rec in recordings:
        parsed = fsdl.SOURCE.parse(rec.page)
        assert parsed.kind == "rental" and parsed.records
        assert all(o.as_of == rec.page.fetched_at.date() for o in parsed.records)
        assert validate_prices(parsed.records)[1] == []
        total += len(parsed.records)
    assert total > 9000
    assert all((FIXTURES / path).is_file() for path in fsdl.SOURCE.fixtures) and len(fsdl.SOURCE.fixtures) == 54


def test_as_of_of_a_pinned_url_is_its_commit_date_whatever_the_capture_date():
    url, data = version("0c4a04d")
    page = FetchedPage(source=fsdl.NAME, url=url, status=200, fetched_at=datetime(2026, 5, 1, tzinfo=timezone.utc),
                       sha256="0" * 64, body=data, content_type="text/csv")
    assert fsdl.commit_date(url) == date(2023, 2, 1)
    assert {o.as_of for o in fsdl.SOURCE.parse(page).records} == {date(2023, 2, 1)}
    live = page.model_copy(update={"url": fsdl.LIVE_URL})
    assert fsdl.commit_date(fsdl.LIVE_URL) is None
    assert {o.as_of for o in fsdl.SOURCE.parse(live).records} == {date(2026, 5, 1)}


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


def test_fetch_reads_the_newest_version_only():
    asked = []

    class Client:
        def get(self, url, source):
            asked.append((url, source))
            return FetchedPage(source=source, url=url, status=200, fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                               sha256="0" * 64, body=b"", content_type="text/csv")

    fetched = fsdl._fetch(fsdl.FetchContext(client=Client(), settings=None, replay=False))
    assert asked == [(fsdl.LIVE_URL, "fsdl-cloud-gpus")] and len(fetched.pages) == 1


def test_a_replay_fetch_reads_one_version_per_commit_date_then_the_newest():
    asked = []

    class Client:
        def get(self, url, source):
            asked.append(url)
            return FetchedPage(source=source, url=url, status=200, fetched_at=datetime(2026, 1, 1, tzinfo=timezone.utc),
                               sha256="0" * 64, body=b"", content_type="text/csv")

    fsdl._fetch(fsdl.FetchContext(client=Client(), settings=None, replay=True))
    history = fsdl.replay_history()
    assert asked == [fsdl.pinned_url(c) for c, _ in history] + [fsdl.LIVE_URL]
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
    for url in [fsdl.pinned_url(c) for c, _ in fsdl.HISTORY] + [fsdl.LIVE_URL]:
        assert recorded[url].source == "fsdl-cloud-gpus"
    assert recorded[fsdl.LIVE_URL].fetched_at.date() == date(2025, 3, 7)
