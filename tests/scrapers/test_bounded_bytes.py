"""Bytes within bounds: decompression stops at a size limit, responses past a size are refused,
and an archived body that is not what its index line recorded is never read as it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
import zlib
from datetime import UTC, datetime

import httpx
import pytest

from gpuvalue.models.records import FetchedPage
from gpuvalue.scrapers.archive import Archive, TamperedBody, sha256_hex
from gpuvalue.scrapers.bounded import MB, TooLarge, declares_dtd, expanded_size, gunzip_bounded
from gpuvalue.scrapers.errors import FetchError
from gpuvalue.scrapers.http import PoliteClient

URL = "https://api.ebay.com/buy/browse/v1/item_summary/search?q=rtx"


def _bomb(path, expands_to_mb: int) -> None:
    """A gzip file of zeros, written a megabyte at a time (never whole in this process)."""
    zeros = bytes(MB)
    with gzip.open(path, "wb", compresslevel=9) as fh:
        for _ in range(expands_to_mb):
            fh.write(zeros)


def test_gunzip_bounded_reads_members_within_the_limit_and_refuses_past_it():
    data = gzip.compress(b"page one ") + gzip.compress(b"page two")
    assert gunzip_bounded(data, 100) == b"page one page two"
    with pytest.raises(TooLarge, match="larger than the"):
        gunzip_bounded(gzip.compress(bytes(10_000)), 9_999)
    assert expanded_size(gzip.compress(bytes(10_000)), 10_000) == 10_000
    with pytest.raises((EOFError, zlib.error)):
        gunzip_bounded(gzip.compress(b"x" * 1000)[:-12], 10_000)


# Linux counts the memory of the process a command was started from in the command's peak (its
# ru_maxrss keeps the larger of the two across exec): a test worker of hundreds of MB would be measured.
# So a small Python starts the command and reports its peak.
PEAK = """
import json, os, sys
out, err, *command = sys.argv[1:]
actions = [(os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
           (os.POSIX_SPAWN_OPEN, 2, err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
pid = os.posix_spawn(command[0], command, os.environ, file_actions=actions)
_, status, usage = os.wait4(pid, 0)
print(json.dumps({"code": os.waitstatus_to_exitcode(status), "peak_kb": usage.ru_maxrss}))
"""


@pytest.mark.e2e  # about 2 s: a child process parses a gzip bomb and reports its peak memory
@pytest.mark.skipif(not hasattr(os, "posix_spawn") or not hasattr(os, "wait4"), reason="reads the peak with wait4")
def test_parse_refuses_a_decompression_bomb_in_one_line_under_200_mb(tmp_path):
    bomb = tmp_path / "bomb.gz"
    _bomb(bomb, 600)  # 0.6 MB that expands to 600 MB: gzip.decompress held all of it
    assert bomb.stat().st_size < 2 * MB
    out, err = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    done = subprocess.run([sys.executable, "-c", PEAK, str(out), str(err), sys.executable, "-m", "gpuvalue.flows.cli",
                           "parse", "ebay-browse", str(bomb)], capture_output=True, text=True, timeout=120)
    measured = json.loads(done.stdout)
    lines = [line for line in err.read_text().splitlines() if line.strip()]
    assert measured["code"] == 1, lines
    assert len(lines) == 1, lines
    assert "expands past the 100 MB a decompressed page may be (GPUVALUE_MAX_DECOMPRESSED_MB)" in lines[0]
    assert out.read_text() == ""
    assert measured["peak_kb"] * 1024 < 200 * MB, f"peak {measured['peak_kb'] / 1024:.0f} MB"


def test_a_response_larger_than_the_limit_is_refused_and_not_retried():
    calls = []

    def site(request):
        calls.append(request)
        return httpx.Response(200, content=b"x" * (3 * MB), headers={"content-type": "application/json"})

    client = PoliteClient(transport=httpx.MockTransport(site), sleep=lambda s: None, max_body_bytes=MB)
    with pytest.raises(FetchError, match=r"response body larger than 1 MB \(GPUVALUE_MAX_RESPONSE_MB\) \(not retried\)"):
        client.get(URL, source="ebay-browse")
    assert len(calls) == 1


def test_a_compressed_response_is_bounded_as_it_expands():
    bomb = gzip.compress(bytes(8 * MB))

    def site(request):  # no content-length: the size shows only as the body arrives
        return httpx.Response(200, stream=httpx.ByteStream(bomb), headers={"content-encoding": "gzip"})

    client = PoliteClient(transport=httpx.MockTransport(site), sleep=lambda s: None, max_body_bytes=MB)
    with pytest.raises(FetchError, match="response body larger than 1 MB"):
        client.get(URL, source="ebay-browse")


def test_a_response_within_the_limit_is_read_whole():
    client = PoliteClient(transport=httpx.MockTransport(lambda r: httpx.Response(200, content=b"{}" * 1000)),
                          sleep=lambda s: None, max_body_bytes=MB)
    page = client.get(URL, source="ebay-browse")
    assert page.body == b"{}" * 1000 and page.status == 200


def test_an_archived_body_that_changed_is_refused(tmp_path):
    archive = Archive(tmp_path)
    page = FetchedPage(source="lambda", url="https://x/y", status=200, fetched_at=datetime(2025, 1, 1, tzinfo=UTC),
                       body=b"<table>1</table>", sha256=sha256_hex(b"<table>1</table>"))
    entry = archive.put(page)
    assert archive.read_body(entry.sha256) == page.body
    archive.body_path(entry.sha256).write_bytes(gzip.compress(b"<table>9</table>"))
    with pytest.raises(TamperedBody, match="has sha256 .*, not the one its index line records"):
        archive.read_body(entry.sha256)
    small = Archive(tmp_path, max_body_bytes=4)
    archive.body_path(entry.sha256).write_bytes(gzip.compress(page.body))
    with pytest.raises(TamperedBody, match="expands past the"):
        small.read_body(entry.sha256)


def test_a_document_type_or_entity_declaration_is_told_apart():
    assert declares_dtd(b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><x>&a;</x>')
    assert declares_dtd(b"<?xml version='1.0'?><!doctype x><x/>")
    assert declares_dtd(b"<x>" + b" " * 10_000 + b'<!ENTITY a "b"></x>')  # an entity anywhere
    assert not declares_dtd(b'<?xml version="1.0"?><feed><title>&lt;!DOCTYPE&gt;</title></feed>')
    assert not declares_dtd(b"<x>" + b" " * 3_000 + b"<!DOCTYPE x></x>")  # past the prologue: not one
