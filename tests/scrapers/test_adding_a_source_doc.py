"""docs/adding-a-source.md's example module is code a newcomer copies: it must import, declare a
valid source and survive a replay that holds only some of its searches."""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

from gpuvalue.scrapers.errors import NotRecordedError
from gpuvalue.scrapers.source import FetchContext, Source, page_from_file

DOC = Path(__file__).resolve().parents[2] / "docs" / "adding-a-source.md"


@pytest.fixture(scope="module")
def example() -> types.ModuleType:
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "docs/adding-a-source.md shows no python block"
    module = types.ModuleType("gpumart_doc_example")
    exec(compile(blocks[0], str(DOC), "exec"), module.__dict__)
    return module


class _ReplayClient:
    """A replay transport's answers: the recorded URLs, NotRecordedError for every other."""

    def __init__(self, recorded: set[str]) -> None:
        self.recorded = recorded

    def get(self, url: str, *, source: str, headers: dict | None = None):
        if url not in self.recorded:
            raise NotRecordedError(url, "not in the replay archive")
        return page_from_file(source, b"<html></html>", url)


def test_the_example_declares_a_valid_listing_source(example):
    source = example.SOURCE
    assert isinstance(source, Source)
    assert (source.name, source.kind, source.export_kind) == ("gpumart", "listing", "listings")
    assert source.fetch is example._fetch and source.parse is example._parse and source.replay is example._replay
    assert source.fixtures and all(not Path(f).is_absolute() for f in source.fixtures)
    assert example.GpumartSettings(gpumart_queries=["RTX 3090"]).gpumart_queries == ("RTX 3090",)


def test_the_examples_fetch_skips_the_searches_a_replay_never_recorded_and_says_so_once(example):
    queries = ("NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 4090", "NVIDIA Tesla T4")
    client = _ReplayClient({example.search_url("NVIDIA GeForce RTX 3090")})
    ctx = FetchContext(client=client, settings=example.GpumartSettings(), replay=True, shopping_list=queries)
    out = example._fetch(ctx)
    assert [page.url for page in out.pages] == [example.search_url("NVIDIA GeForce RTX 3090")]
    assert out.warnings == ["gpumart: 2 of 3 searches have no recording in the replay archive; skipped"]
