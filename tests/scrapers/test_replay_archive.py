"""The shipped replay archive keeps one index per source (scrapers/replay_archive/sources/): recording
a source writes its own index and bodies, and no other source's file."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

from gpuvalue.scrapers.archive import SOURCE_INDEXES, Archive
from gpuvalue.scrapers.replay import packaged_replay_dir
from gpuvalue.scrapers.replay_build import build, prune_bodies, split_index
from gpuvalue.scrapers.source import page_from_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def _digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_each_recorded_source_has_its_own_index_and_description():
    root = packaged_replay_dir()
    assert not (root / "index.jsonl").exists()
    indexes = sorted((root / SOURCE_INDEXES).glob("*.jsonl"))
    assert indexes
    for index in indexes:
        source = index.stem
        lines = [json.loads(line) for line in index.read_text(encoding="utf-8").splitlines()]
        assert lines and {line["source"] for line in lines} == {source}, index.name
        assert (index.with_suffix(".md")).exists(), f"{source}: no sources/{source}.md describes its recordings"
    described = {p.stem for p in (root / SOURCE_INDEXES).glob("*.md")}
    assert described == {p.stem for p in indexes}


def test_every_body_is_referred_to_and_every_reference_is_there():
    archive = Archive(packaged_replay_dir())
    referenced = {e.sha256 for e in archive.entries()}
    stored = {p.name.removesuffix(".gz") for p in (archive.root / "bodies").glob("*/*.gz")}
    assert referenced == stored


def test_recording_one_source_rewrites_its_own_files_only(tmp_path):
    out = tmp_path / "archive"
    shutil.copytree(packaged_replay_dir(), out)
    before = _digest(out)
    index = out / SOURCE_INDEXES / "runpod.jsonl"
    index.write_text(index.read_text(encoding="utf-8") * 2, encoding="utf-8")  # a stale line to be replaced
    stale = out / "bodies" / "00" / ("00" * 32 + ".gz")
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_bytes(b"a body no index refers to")

    build(FIXTURES, out, ("runpod",))
    assert _digest(out) == before  # the same recording again, the stale line and body gone


def test_a_single_index_is_split_into_the_sources_own_with_each_line_unchanged(tmp_path):
    archive = Archive(tmp_path)
    day = datetime(2026, 1, 2, tzinfo=UTC)
    for source, url in (("alpha", "https://a.example/1"), ("beta", "https://b.example/1"), ("alpha", "https://a.example/2")):
        archive.put(page_from_file(source, url.encode(), url, day), note=f"saved {url}")
    lines = archive.index_path.read_text(encoding="utf-8").splitlines(keepends=True)
    with (tmp_path / "index.jsonl").open("a") as fh:
        fh.write('{"torn": ')  # a crash mid-append

    assert split_index(archive) == 3
    assert not archive.index_path.exists()
    assert (tmp_path / SOURCE_INDEXES / "alpha.jsonl").read_text(encoding="utf-8") == lines[0] + lines[2]
    assert (tmp_path / SOURCE_INDEXES / "beta.jsonl").read_text(encoding="utf-8") == lines[1]
    assert [(e.source, e.url) for e in archive.entries()] == [
        ("alpha", "https://a.example/1"), ("alpha", "https://a.example/2"), ("beta", "https://b.example/1")]
    assert prune_bodies(archive) == 0


def test_an_archive_reads_its_single_index_and_the_sources_own(tmp_path):
    archive = Archive(tmp_path)
    day = datetime(2026, 1, 2, tzinfo=UTC)
    archive.put(page_from_file("raw", b"fetched", "https://raw.example/", day))
    archive.put(page_from_file("alpha", b"recorded", "https://a.example/", day), own_index=True)
    assert [(e.source, archive.read_body(e.sha256)) for e in archive.entries()] == [
        ("raw", b"fetched"), ("alpha", b"recorded")]
    assert archive.sources() == {"raw", "alpha"}
