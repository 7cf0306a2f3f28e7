"""Every page parser answers garbage with ParseError and nothing else: random bytes, other
encodings, real pages cut at random offsets, JSON of the wrong shape, and pages of several MB.

The real pages are the recordings gpuvalue ships for replay and the listings fixtures.
"""

from __future__ import annotations

import gzip
import importlib
import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from property_budget import examples

from gpuvalue.scrapers import registry
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import page_from_file

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
FUZZ = settings(max_examples=examples(40), deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _module(name: str):
    return importlib.import_module(f"gpuvalue.scrapers.{name}")


def _registry_parser(name: str):
    """A registered source's parse, as the flow calls it, on a page of the given bytes."""
    src = registry.get(name)

    url = src.sample_url or "https://example.invalid/"

    def parse(body: bytes) -> object:
        if src.inspect is not None:  # what `gpuvalue parse` reads: the content whatever the URL
            src.inspect(body, url)
        return src.parse(page_from_file(name, body, url, NOW))

    return parse


def _browse(body: bytes) -> object:
    return _module("sources.ebay_browse").parse_browse_search(body, "https://api.ebay.com/buy/browse/v1/item_summary/search?q=x", NOW)


def _listing_csv(body: bytes) -> object:
    # The CLI reads the file as text first; what cannot be decoded never reaches the parser.
    return _module("listing_csv").parse_listing_csv(body.decode("latin-1"), "import:fuzz", NOW)


def _fixture(rel: str) -> bytes:
    body = (FIXTURES / rel).read_bytes()
    return gzip.decompress(body) if rel.endswith(".gz") else body


# Every registered source that parses pages, from the registry (a new source is fuzzed without
# editing this file), plus the CSV importer, which is no fetched source.
PARSERS = {name: _registry_parser(name) for name, src in registry.all_sources().items() if src.parse is not None}
PARSERS["listing-csv"] = _listing_csv
REAL = {name: _fixture(src.fixtures[0]) for name, src in registry.all_sources().items()
        if src.parse is not None and src.fixtures and (FIXTURES / src.fixtures[0]).is_file()}
REAL["listing-csv"] = (FIXTURES / "listings" / "ebay_sold_2020_rtx3090_driscoll42_excerpt200.csv").read_bytes()


def _only_parse_error(parser, body: bytes) -> None:
    try:
        parser(body)
    except ParseError:
        pass
    # Anything else propagates and fails the test with the input hypothesis found.


@pytest.mark.parametrize("name", PARSERS)
@FUZZ
@given(body=st.binary(max_size=4000))
def test_random_bytes(name, body):
    _only_parse_error(PARSERS[name], body)


@pytest.mark.parametrize("name", PARSERS)
@FUZZ
@given(text=st.text(max_size=2000), encoding=st.sampled_from(["utf-16", "utf-16-le", "latin-1", "cp1252", "utf-32"]))
def test_text_in_other_encodings(name, text, encoding):
    _only_parse_error(PARSERS[name], text.encode(encoding, errors="replace"))


@pytest.mark.parametrize("name", [n for n in REAL])
@FUZZ
@given(data=st.data())
def test_real_pages_cut_at_random_offsets(name, data):
    page = REAL[name]
    cut = data.draw(st.integers(min_value=0, max_value=len(page) - 1), label="cut")
    _only_parse_error(PARSERS[name], page[:cut])


@pytest.mark.parametrize("name", [n for n in REAL])
def test_real_pages_in_utf16_and_latin1(name):
    text = REAL[name].decode("utf-8")
    for encoding in ("utf-16", "latin-1"):
        _only_parse_error(PARSERS[name], text.encode(encoding, errors="replace"))


@pytest.mark.parametrize("name", [n for n in REAL])
def test_real_pages_whose_links_no_url_parser_reads(name):
    """Every link of the page made unreadable to Python's URL parser (an unclosed IPv6 host, which
    urlsplit and urljoin raise ValueError for): a listing or a row may lose its link, and a page
    its parse, but nothing escapes as another exception."""
    page = REAL[name]
    for scheme in (b"https://", b"http://"):
        page = page.replace(scheme, b"http://[")
    page = page.replace(b'href="/', b'href="http://[/').replace(b"href='/", b"href='http://[/")
    _only_parse_error(PARSERS[name], page)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=20,
)
BROWSE_KEYS = ["href", "total", "limit", "offset", "next", "itemSummaries", "errors", "warnings"]
ITEM_KEYS = ["itemId", "legacyItemId", "title", "price", "shippingOptions", "buyingOptions", "bidCount", "condition",
             "itemWebUrl", "itemEndDate", "currentBidPrice", "seller"]


@pytest.mark.parametrize("name", PARSERS)
@FUZZ
@given(value=json_values)
def test_json_of_the_wrong_shape(name, value):
    _only_parse_error(PARSERS[name], json.dumps(value).encode())


@FUZZ
@given(envelope=st.fixed_dictionaries({}, optional={k: json_values for k in BROWSE_KEYS}),
       items=st.lists(st.fixed_dictionaries({}, optional={k: json_values for k in ITEM_KEYS}), max_size=3))
def test_browse_envelopes_with_wrong_field_types(envelope, items):
    if items:
        envelope = {**envelope, "itemSummaries": items}
    _only_parse_error(_browse, json.dumps(envelope).encode())


# A page of well-formed wiki tables; the Wikipedia parser is the slowest, so its page is the smallest.
WIKI_TABLE = (b"<table class='wikitable'><tr><th>Model</th><th>Launch</th></tr>"
              + b"<tr><td>GeForce x</td><td>2020</td></tr>" * 10 + b"</table>")
HUGE = {"wikipedia": 1_000_000}


@pytest.mark.parametrize("name", PARSERS)
@pytest.mark.e2e
def test_huge_pages(name):
    real = REAL.get(name, b"<html><body>" + WIKI_TABLE * 2)
    size = HUGE.get(name, 3_000_000)
    huge = (real * (size // len(real) + 1))[:size]
    _only_parse_error(PARSERS[name], huge)
    _only_parse_error(PARSERS[name], b"<" * size)
