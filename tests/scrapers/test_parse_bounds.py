"""Parse work bounded by size and depth: a JSON answer nested 100,000 deep, an XML document declaring
entities in UTF-16, fail their source in one line (ParseError), never a RecursionError or an entity
expansion; the parse of a page under the size cap stays proportional to it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gpuvalue.scrapers import registry
from gpuvalue.scrapers.bounded import DtdRefused, TooDeep, declares_dtd, json_document, xml_root
from gpuvalue.scrapers.errors import ParseError
from gpuvalue.scrapers.source import page_from_file
from gpuvalue.scrapers.sources.ecb import parse_ecb_rates
from gpuvalue.scrapers.sources.hardwareswap import parse_hardwareswap_atom

DEEP_ARRAY = b"[" * 100_000 + b"]" * 100_000
DEEP_OBJECT = b'{"parse":' * 100_000 + b"1" + b"}" * 100_000


def test_json_nested_100000_deep_is_a_value_error_not_a_recursion_error():
    for body in (DEEP_ARRAY, DEEP_OBJECT):
        with pytest.raises(TooDeep):
            json_document(body)
    assert json_document(b'{"a": [1, {"b": 2}]}') == {"a": [1, {"b": 2}]}


@pytest.mark.parametrize("name", registry.parsers())
@pytest.mark.parametrize("body", [DEEP_ARRAY, DEEP_OBJECT], ids=["array", "object"])
def test_every_parser_fails_a_deeply_nested_answer_in_one_line(name, body):
    src = registry.get(name)
    try:
        src.parse(page_from_file(src.name, body, src.sample_url or "https://example.org/"))
    except ParseError as exc:
        assert "\n" not in str(exc)
    # Any other exception (a RecursionError above all) fails the test.


def _laughs(encoding: str) -> bytes:
    lol = "".join(f'<!ENTITY l{i} "{"&l" + str(i - 1) + ";" * 1 if i else "lol"}{("&l" + str(i - 1) + ";") * 9 if i else ""}">'
                  for i in range(10))
    text = (f'<?xml version="1.0" encoding="{encoding}"?><!DOCTYPE feed [{lol}]>'
            '<feed xmlns="http://www.w3.org/2005/Atom"><title>&l9;</title></feed>')
    return text.encode(encoding)


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-8"])
def test_entities_in_utf16_are_seen_by_the_ecb_and_hardwareswap_parsers(encoding):
    body = _laughs(encoding)
    assert declares_dtd(body)
    with pytest.raises(ParseError, match="DOCTYPE or entities|document type declaration"):
        parse_hardwareswap_atom(body, "https://www.reddit.com/r/hardwareswap/new/.rss", datetime(2026, 12, 1, tzinfo=UTC))
    with pytest.raises(ParseError, match="document type declaration"):
        parse_ecb_rates(body, "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml")


def test_the_parser_itself_refuses_a_declaration_the_byte_check_cannot_see():
    """A document type declared after a long comment: the byte check looks at the prologue's first
    2,000 bytes; expat still meets the declaration, and refuses it."""
    body = b'<?xml version="1.0"?><!--' + b"x" * 5000 + b'--><!DOCTYPE feed SYSTEM "http://internal.example/x.dtd"><feed/>'
    assert not declares_dtd(body)
    with pytest.raises(DtdRefused):
        xml_root(body)
    with pytest.raises(ParseError, match="DOCTYPE or entities"):
        parse_hardwareswap_atom(body, "https://www.reddit.com/r/hardwareswap/new/.rss", datetime(2026, 12, 1, tzinfo=UTC))
    root = xml_root(b'<a xmlns="urn:x"><b k="v">t</b></a>')
    assert root.tag == "{urn:x}a" and root[0].attrib == {"k": "v"} and root[0].text == "t"


# ---- Wikipedia's tables: work bounded by the page's size, spans and rows -------------------------

WIKI_URL = "https://en.wikipedia.org/w/api.php?action=parse&page=List_of_Nvidia_graphics_processing_units"
HEAD = "<table class='wikitable'><tr><th>Model</th><th>Memory (GB)</th></tr>"


def test_a_page_past_the_cap_is_refused_before_it_is_parsed():
    from gpuvalue.scrapers.sources import wikipedia

    page = (HEAD + "<tr><td>RTX 3090</td><td>24</td></tr>").encode() + b" " * wikipedia.MAX_PAGE_BYTES
    with pytest.raises(ParseError, match=r"MB of HTML, more than a list page holds \(16 MB\)"):
        wikipedia.parse_wikipedia_gpu_list(page, WIKI_URL)


def test_spans_that_would_fill_millions_of_slots_are_refused_in_small_memory():
    import tracemalloc

    from gpuvalue.scrapers.sources import wikipedia

    bomb = HEAD + "<tr>" + "<td colspan=200 rowspan=200>x</td>" * 100 + "</tr></table>"  # 4 million slots
    tracemalloc.start()
    try:
        with pytest.raises(ParseError, match="tables spanning more than 500,000 cells"):
            wikipedia.parse_wikipedia_gpu_list(bomb, WIKI_URL)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 1024 * 1024, f"{peak / 1e6:.0f} MB"


def test_rows_past_the_bound_are_refused(monkeypatch):
    from gpuvalue.scrapers.sources import wikipedia

    monkeypatch.setattr(wikipedia, "MAX_ROWS", 50)
    rows = "".join(f"<tr><td>GeForce RTX {3000 + i}</td><td>24</td></tr>" for i in range(60))
    with pytest.raises(ParseError, match="more than 50 table rows"):
        wikipedia.parse_wikipedia_gpu_list(HEAD + rows + "</table>", WIKI_URL)
    assert len(wikipedia.parse_wikipedia_gpu_list(HEAD + rows[: rows.index("<tr>", 1000)] + "</table>", WIKI_URL)) > 5


def test_parse_work_grows_with_the_page_not_faster():
    """Twice the rows, about twice the Python allocations (BeautifulSoup's tree took ten times the page)."""
    import tracemalloc

    from gpuvalue.scrapers.sources import wikipedia

    def peak(n: int) -> int:
        page = HEAD + "<tr><td>GeForce RTX 3090</td><td>24</td></tr>" * n + "</table>"
        tracemalloc.start()
        try:
            wikipedia.parse_wikipedia_gpu_list(page, WIKI_URL)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    small, large = peak(500), peak(1000)
    assert large < 2.6 * small, (small, large)
